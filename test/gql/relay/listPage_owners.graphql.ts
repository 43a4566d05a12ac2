/**
 * @generated SignedSource<<78d2584a2722d052218b265f829e0693>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import type { ReaderFragment } from 'relay-runtime';
import type { FragmentRefs, Result } from "relay-runtime";
export type listPage_owners$data = {
  readonly shareholders: Result<ReadonlyArray<{
    readonly name: string | null | undefined;
  }>, unknown>;
  readonly " $fragmentType": "listPage_owners";
};
export type listPage_owners$key = {
  readonly " $data"?: listPage_owners$data;
  readonly " $fragmentSpreads": FragmentRefs<"listPage_owners">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "listPage_owners",
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
            "kind": "ScalarField",
            "name": "name",
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

(node as any).hash = "e4f8bfad268f3fefc017bdb5de908ea9";

export default node;
