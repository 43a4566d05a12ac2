/**
 * @generated SignedSource<<f385f52876cb3b4934fb57684d846b2b>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import type { ConcreteRequest } from 'relay-runtime';
export type listPageListsQuery$variables = {
  first: number;
  stream: boolean;
};
export type listPageListsQuery$data = {
  readonly lists: {
    readonly nodes: ReadonlyArray<{
      readonly listId: number;
      readonly name: string;
    }>;
  } | null | undefined;
};
export type listPageListsQuery = {
  response: listPageListsQuery$data;
  variables: listPageListsQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "first"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "stream"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "first",
    "variableName": "first"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "listId",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "name",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "listPageListsQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "ListConnection",
        "kind": "LinkedField",
        "name": "lists",
        "plural": false,
        "selections": [
          {
            "kind": "Stream",
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "List",
                "kind": "LinkedField",
                "name": "nodes",
                "plural": true,
                "selections": [
                  (v2/*:: as any*/),
                  (v3/*:: as any*/)
                ],
                "storageKey": null
              }
            ]
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
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "listPageListsQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "ListConnection",
        "kind": "LinkedField",
        "name": "lists",
        "plural": false,
        "selections": [
          {
            "if": "stream",
            "kind": "Stream",
            "label": "listPageListsQuery$stream$nodes",
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "List",
                "kind": "LinkedField",
                "name": "nodes",
                "plural": true,
                "selections": [
                  (v2/*:: as any*/),
                  (v3/*:: as any*/),
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "id",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              }
            ]
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "6f692156760992474067c3b8f54439b8",
    "id": null,
    "metadata": {},
    "name": "listPageListsQuery",
    "operationKind": "query",
    "text": "query listPageListsQuery(\n  $first: Int!\n  $stream: Boolean!\n) {\n  lists(first: $first) {\n    nodes @stream(label: \"listPageListsQuery$stream$nodes\", if: $stream, initialCount: 1) {\n      listId\n      name\n      id\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "4fd3ce9277a6d130c29a5e0c223029b6";

export default node;
