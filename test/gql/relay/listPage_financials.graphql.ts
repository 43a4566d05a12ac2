/**
 * @generated SignedSource<<dcfe48190c1a807cb483d700ec3df534>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import type { ReaderFragment } from 'relay-runtime';
import type { FragmentRefs } from "relay-runtime";
export type listPage_financials$data = {
  readonly financials: {
    readonly nodes: ReadonlyArray<{
      readonly endDate: string;
    }>;
    readonly totalCount: number;
  } | null | undefined;
  readonly " $fragmentType": "listPage_financials";
};
export type listPage_financials$key = {
  readonly " $data"?: listPage_financials$data;
  readonly " $fragmentSpreads": FragmentRefs<"listPage_financials">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "listPage_financials",
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
  ],
  "type": "Company",
  "abstractKey": null
};

(node as any).hash = "ef3188e56421783da4ba86d5c020d179";

export default node;
