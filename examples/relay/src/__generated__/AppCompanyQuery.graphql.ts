/**
 * @generated SignedSource<<6f4f9ac0d9cbf919a0214760a46c0cbc>>
 * @relayHash 34e73a311b5d9d1180b4ee8adb598e4b
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

// @relayRequestID d1d5d38cb5a7254149b21483dfd87b002b3ff40cd093098cf0330bb28eb1a15b

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs, Result } from "relay-runtime";
export type Country = "BE" | "FR" | "NL" | "%future added value";
export type AppCompanyQuery$variables = {
  country: Country;
  number: string;
};
export type AppCompanyQuery$data = {
  readonly company: Result<{
    readonly financials: Result<{
      readonly edges: ReadonlyArray<{
        readonly node: {
          readonly endDate: string;
          readonly profitability: {
            readonly revenue: number | null | undefined;
          };
        };
      }>;
    }, unknown>;
    readonly name: string | null | undefined;
    readonly place: string | null | undefined;
    readonly " $fragmentSpreads": FragmentRefs<"AppCompanyOwners">;
  } | null | undefined, unknown>;
};
export type AppCompanyQuery = {
  response: AppCompanyQuery$data;
  variables: AppCompanyQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "country"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "number"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "country",
    "variableName": "country"
  },
  {
    "kind": "Variable",
    "name": "number",
    "variableName": "number"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "name",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "place",
  "storageKey": null
},
v4 = {
  "alias": null,
  "args": [
    {
      "kind": "Literal",
      "name": "first",
      "value": 3
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
      "concreteType": "FinancialEdge",
      "kind": "LinkedField",
      "name": "edges",
      "plural": true,
      "selections": [
        {
          "alias": null,
          "args": null,
          "concreteType": "Financial",
          "kind": "LinkedField",
          "name": "node",
          "plural": false,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "endDate",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "concreteType": "Profitability",
              "kind": "LinkedField",
              "name": "profitability",
              "plural": false,
              "selections": [
                {
                  "alias": null,
                  "args": null,
                  "kind": "ScalarField",
                  "name": "revenue",
                  "storageKey": null
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
  "storageKey": "financials(first:3)"
},
v5 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "AppCompanyQuery",
    "selections": [
      {
        "kind": "CatchField",
        "field": {
          "alias": null,
          "args": (v1/*:: as any*/),
          "concreteType": "Company",
          "kind": "LinkedField",
          "name": "company",
          "plural": false,
          "selections": [
            (v2/*:: as any*/),
            (v3/*:: as any*/),
            {
              "kind": "CatchField",
              "field": (v4/*:: as any*/),
              "to": "RESULT"
            },
            {
              "kind": "Defer",
              "selections": [
                {
                  "args": null,
                  "kind": "FragmentSpread",
                  "name": "AppCompanyOwners"
                }
              ]
            }
          ],
          "storageKey": null
        },
        "to": "RESULT"
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "AppCompanyQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "Company",
        "kind": "LinkedField",
        "name": "company",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "if": null,
            "kind": "Defer",
            "label": "AppCompanyQuery$defer$AppCompanyOwners",
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "Relationship",
                "kind": "LinkedField",
                "name": "shareholders",
                "plural": true,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "concreteType": "Company",
                    "kind": "LinkedField",
                    "name": "company",
                    "plural": false,
                    "selections": [
                      (v5/*:: as any*/)
                    ],
                    "storageKey": null
                  },
                  (v2/*:: as any*/),
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "percentage",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              }
            ]
          },
          (v5/*:: as any*/)
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "id": "d1d5d38cb5a7254149b21483dfd87b002b3ff40cd093098cf0330bb28eb1a15b",
    "metadata": {},
    "name": "AppCompanyQuery",
    "operationKind": "query",
    "text": null
  }
};
})();

(node as any).hash = "b996a3e088780d9832118011ac5ba33f";

export default node;
