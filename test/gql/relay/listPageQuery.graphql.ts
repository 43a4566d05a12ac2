/**
 * @generated SignedSource<<41d31c69a79dc3c7feb50ef81bf69d5e>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import type { ConcreteRequest } from 'relay-runtime';
import type { FragmentRefs } from "relay-runtime";
export type listPageQuery$variables = {
  first: number;
  listId: number;
};
export type listPageQuery$data = {
  readonly list: {
    readonly companies: {
      readonly nodes: ReadonlyArray<{
        readonly name: string | null | undefined;
        readonly " $fragmentSpreads": FragmentRefs<"listPage_financials" | "listPage_owners">;
      }>;
    } | null | undefined;
    readonly createdAt: string;
    readonly name: string;
  } | null | undefined;
};
export type listPageQuery = {
  response: listPageQuery$data;
  variables: listPageQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "first"
},
v1 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "listId"
},
v2 = [
  {
    "kind": "Variable",
    "name": "listId",
    "variableName": "listId"
  }
],
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "name",
  "storageKey": null
},
v4 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "createdAt",
  "storageKey": null
},
v5 = [
  {
    "kind": "Variable",
    "name": "first",
    "variableName": "first"
  }
],
v6 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": [
      (v0/*:: as any*/),
      (v1/*:: as any*/)
    ],
    "kind": "Fragment",
    "metadata": null,
    "name": "listPageQuery",
    "selections": [
      {
        "alias": null,
        "args": (v2/*:: as any*/),
        "concreteType": "List",
        "kind": "LinkedField",
        "name": "list",
        "plural": false,
        "selections": [
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": (v5/*:: as any*/),
            "concreteType": "ListCompanyConnection",
            "kind": "LinkedField",
            "name": "companies",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "Company",
                "kind": "LinkedField",
                "name": "nodes",
                "plural": true,
                "selections": [
                  (v3/*:: as any*/),
                  {
                    "kind": "Defer",
                    "selections": [
                      {
                        "args": null,
                        "kind": "FragmentSpread",
                        "name": "listPage_financials"
                      }
                    ]
                  },
                  {
                    "kind": "Defer",
                    "selections": [
                      {
                        "args": null,
                        "kind": "FragmentSpread",
                        "name": "listPage_owners"
                      }
                    ]
                  }
                ],
                "storageKey": null
              }
            ],
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [
      (v1/*:: as any*/),
      (v0/*:: as any*/)
    ],
    "kind": "Operation",
    "name": "listPageQuery",
    "selections": [
      {
        "alias": null,
        "args": (v2/*:: as any*/),
        "concreteType": "List",
        "kind": "LinkedField",
        "name": "list",
        "plural": false,
        "selections": [
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": (v5/*:: as any*/),
            "concreteType": "ListCompanyConnection",
            "kind": "LinkedField",
            "name": "companies",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "Company",
                "kind": "LinkedField",
                "name": "nodes",
                "plural": true,
                "selections": [
                  (v3/*:: as any*/),
                  {
                    "if": null,
                    "kind": "Defer",
                    "label": "listPageQuery$defer$listPage_financials",
                    "selections": [
                      {
                        "alias": null,
                        "args": [
                          {
                            "kind": "Literal",
                            "name": "first",
                            "value": 2
                          }
                        ],
                        "concreteType": "FinancialConnection",
                        "kind": "LinkedField",
                        "name": "financials",
                        "plural": false,
                        "selections": [
                          {
                            "alias": null,
                            "args": null,
                            "kind": "ScalarField",
                            "name": "totalCount",
                            "storageKey": null
                          },
                          {
                            "alias": null,
                            "args": null,
                            "concreteType": "Financial",
                            "kind": "LinkedField",
                            "name": "nodes",
                            "plural": true,
                            "selections": [
                              {
                                "alias": null,
                                "args": null,
                                "kind": "ScalarField",
                                "name": "endDate",
                                "storageKey": null
                              }
                            ],
                            "storageKey": null
                          }
                        ],
                        "storageKey": "financials(first:2)"
                      }
                    ]
                  },
                  {
                    "if": null,
                    "kind": "Defer",
                    "label": "listPageQuery$defer$listPage_owners",
                    "selections": [
                      {
                        "alias": null,
                        "args": null,
                        "concreteType": "Relationship",
                        "kind": "LinkedField",
                        "name": "shareholders",
                        "plural": true,
                        "selections": [
                          (v3/*:: as any*/)
                        ],
                        "storageKey": null
                      }
                    ]
                  },
                  (v6/*:: as any*/)
                ],
                "storageKey": null
              }
            ],
            "storageKey": null
          },
          (v6/*:: as any*/)
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "2803bbb825418e46bd46a844b193e7ab",
    "id": null,
    "metadata": {},
    "name": "listPageQuery",
    "operationKind": "query",
    "text": "query listPageQuery(\n  $listId: Int!\n  $first: Int!\n) {\n  list(listId: $listId) {\n    name\n    createdAt\n    companies(first: $first) {\n      nodes {\n        name\n        ...listPage_financials @defer(label: \"listPageQuery$defer$listPage_financials\")\n        ...listPage_owners @defer(label: \"listPageQuery$defer$listPage_owners\")\n        id\n      }\n    }\n    id\n  }\n}\n\nfragment listPage_financials on Company {\n  financials(first: 2) {\n    totalCount\n    nodes {\n      endDate\n    }\n  }\n}\n\nfragment listPage_owners on Company {\n  shareholders {\n    name\n  }\n}\n"
  }
};
})();

(node as any).hash = "c7f708134acfb57d0b9767ddce6caf31";

export default node;
