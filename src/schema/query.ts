import { builder } from './builder.js'

builder.queryType({
  description:
    'Entry points: your lists, one list, one company, or any object by its global ID. Every field of the tree below pages the Relay way and reads the upstream REST service as little as possible.',
})
