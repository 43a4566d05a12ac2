/**
 * @generated SignedSource<<c3fda9323958aed035a87d69854cac3a>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs, Result } from "relay-runtime";
export type AppCompanyOwners$data = {
  readonly shareholders: Result<ReadonlyArray<{
    readonly company: {
      readonly id: string;
    } | null | undefined;
    readonly name: string | null | undefined;
    readonly percentage: number | null | undefined;
  }>, unknown>;
  readonly " $fragmentType": "AppCompanyOwners";
};
export type AppCompanyOwners$key = {
  readonly " $data"?: AppCompanyOwners$data;
  readonly " $fragmentSpreads": FragmentRefs<"AppCompanyOwners">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "AppCompanyOwners",
  "selections": [
    {
      "kind": "CatchField",
      "field": {
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
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "id",
                "storageKey": null
              }
            ],
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
            "name": "percentage",
            "storageKey": null
          }
        ],
        "storageKey": null
      },
      "to": "RESULT"
    }
  ],
  "type": "Company",
  "abstractKey": null
};

(node as any).hash = "950a0e589dc2acd9cf2e1d30d3979104";

export default node;
