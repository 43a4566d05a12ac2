/**
 * @generated SignedSource<<af8d39c4f91a68b59e4b9dac3fe38c03>>
 * @relayHash 7f2dca5c4600a618b140c010235718fd
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

// @relayRequestID 03bdd618b7972de3e52d919dce1a159a0421b24f71de10b7826674c2e565dde2

import { ConcreteRequest } from 'relay-runtime';
import { Result } from "relay-runtime";
export type AppListsQuery$variables = Record<PropertyKey, never>;
export type AppListsQuery$data = {
  readonly lists: Result<{
    readonly edges: ReadonlyArray<{
      readonly node: {
        readonly companyCount: number;
        readonly id: string;
        readonly listId: number;
        readonly name: string;
      };
    }>;
  }, unknown>;
};
export type AppListsQuery = {
  response: AppListsQuery$data;
  variables: AppListsQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "alias": null,
  "args": [
    {
      "kind": "Literal",
      "name": "first",
      "value": 10
    }
  ],
  "concreteType": "ListConnection",
  "kind": "LinkedField",
  "name": "lists",
  "plural": false,
  "selections": [
    {
      "alias": null,
      "args": null,
      "concreteType": "ListEdge",
      "kind": "LinkedField",
      "name": "edges",
      "plural": true,
      "selections": [
        {
          "alias": null,
          "args": null,
          "concreteType": "List",
          "kind": "LinkedField",
          "name": "node",
          "plural": false,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "id",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "listId",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "name",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "companyCount",
              "storageKey": null
            }
          ],
          "storageKey": null
        }
      ],
      "storageKey": null
    }
  ],
  "storageKey": "lists(first:10)"
};
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "AppListsQuery",
    "selections": [
      {
        "kind": "CatchField",
        "field": (v0/*:: as any*/),
        "to": "RESULT"
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "AppListsQuery",
    "selections": [
      (v0/*:: as any*/)
    ]
  },
  "params": {
    "id": "03bdd618b7972de3e52d919dce1a159a0421b24f71de10b7826674c2e565dde2",
    "metadata": {},
    "name": "AppListsQuery",
    "operationKind": "query",
    "text": null
  }
};
})();

(node as any).hash = "ca551532ea44655c535e25ee404569f6";

export default node;
