import { lookalikes } from '../upstream/resources/lookalikes.js'
import { fraction } from './argument-checks.js'
import { builder } from './builder.js'
import { CompanyType } from './company.js'
import { connectionKey, pageOverOffsets } from './paging.js'
import { read } from './reads.js'
import { readBacked } from './semantic-non-null.js'
import { wholeCost } from './upstream-cost.js'

/** Similar companies. The upstream returns them in one unpaged array; the gateway pages it. */

builder.objectField(CompanyType, 'lookalikes', (t) =>
  t.connection(
    {
      ...readBacked,
      type: CompanyType,
      description:
        'Similar companies, best first. The upstream returns them unpaged; the gateway pages them with the same cursors and semantics as every other connection (one upstream call, whatever the page).',
      args: {
        minScore: t.arg.float({
          description:
            'Only companies at least this similar: a fraction between 0 and 1 (0.8 = 80 %).',
        }),
      },
      extensions: wholeCost({ brings: 'bare' }, fraction('minScore')),
      resolve: (company, { minScore, ...args }, ctx, info) =>
        pageOverOffsets(
          // The threshold that applies: none is 0, so both page the same items.
          connectionKey('lookalikes', company.country, company.companyNumber, minScore ?? 0),
          args,
          async (offset, limit) => {
            const { data } = await read(ctx, info, lookalikes, { company })
            // Best first, as promised, whatever order the upstream used.
            const ranked = data
              .filter((item) => item.score >= (minScore ?? 0))
              .sort((a, b) => b.score - a.score)
            return { items: ranked.slice(offset, offset + limit), total: ranked.length }
          },
          (item) => ({ node: item.companyId, score: item.score }),
        ),
    },
    { name: 'LookalikeConnection', description: 'A page of similar companies.' },
    {
      name: 'LookalikeEdge',
      description: 'A similar company, its cursor and how similar it is.',
      fields: (edge) => ({
        score: edge.float({
          description: 'Similarity between 0 and 1 (1 = identical profile), as computed upstream.',
          resolve: (e) => e.score,
        }),
      }),
    },
  ),
)
