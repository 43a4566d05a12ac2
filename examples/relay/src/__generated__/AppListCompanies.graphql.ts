/**
 * @generated SignedSource<<adf83041f0ddeaa0097f1af1f1761284>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type Country = "BE" | "FR" | "NL" | "%future added value";
import { FragmentRefs, Result } from "relay-runtime";
export type AppListCompanies$data = {
  readonly companies: Result<{
    readonly edges: ReadonlyArray<{
      readonly node: {
        readonly country: Country;
        readonly id: string;
        readonly name: string | null | undefined;
        readonly number: string;
      };
    }>;
    readonly totalCount: number;
  }, unknown>;
  readonly id: string;
  readonly " $fragmentType": "AppListCompanies";
};
export type AppListCompanies$key = {
  readonly " $data"?: AppListCompanies$data;
  readonly " $fragmentSpreads": FragmentRefs<"AppListCompanies">;
};

import AppListCompaniesPaginationQuery_graphql from './AppListCompaniesPaginationQuery.graphql';

const node: ReaderFragment = (function(){
var v0 = [
  "companies",
  "value"
],
v1 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
};
return {
  "argumentDefinitions": [
    {
      "defaultValue": 10,
      "kind": "LocalArgument",
      "name": "count"
    },
    {
      "defaultValue": null,
      "kind": "LocalArgument",
      "name": "cursor"
    }
  ],
  "kind": "Fragment",
  "metadata": {
    "connection": [
      {
        "count": "count",
        "cursor": "cursor",
        "direction": "forward",
        "path": (v0/*:: as any*/)
      }
    ],
    "refetch": {
      "connection": {
        "forward": {
          "count": "count",
          "cursor": "cursor"
        },
        "backward": null,
        "path": (v0/*:: as any*/)
      },
      "fragmentPathInResult": [
        "node"
      ],
      "operation": AppListCompaniesPaginationQuery_graphql,
      "identifierInfo": {
        "identifierField": "id",
        "identifierQueryVariableName": "id"
      }
    }
  },
  "name": "AppListCompanies",
  "selections": [
    {
      "kind": "CatchField",
      "field": {
        "alias": "companies",
        "args": null,
        "concreteType": "ListCompanyConnection",
        "kind": "LinkedField",
        "name": "__AppListCompanies_companies_connection",
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
            "concreteType": "ListCompanyEdge",
            "kind": "LinkedField",
            "name": "edges",
            "plural": true,
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "Company",
                "kind": "LinkedField",
                "name": "node",
                "plural": false,
                "selections": [
                  (v1/*:: as any*/),
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "country",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "number",
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
                    "name": "__typename",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "cursor",
                "storageKey": null
              }
            ],
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "concreteType": "PageInfo",
            "kind": "LinkedField",
            "name": "pageInfo",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "endCursor",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "hasNextPage",
                "storageKey": null
              }
            ],
            "storageKey": null
          }
        ],
        "storageKey": null
      },
      "to": "RESULT"
    },
    (v1/*:: as any*/)
  ],
  "type": "List",
  "abstractKey": null
};
})();

(node as any).hash = "3c2fb8768c447d06ad7cfd9bcd079386";

export default node;
