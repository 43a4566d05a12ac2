import { DateResolver, DateTimeISOResolver } from 'graphql-scalars'
import { builder } from './builder.js'

builder.addScalarType('DateTime', DateTimeISOResolver, {
  description: 'ISO 8601 date-time in UTC, e.g. 2024-03-01T10:15:00.000Z.',
})

builder.addScalarType('Date', DateResolver, {
  description: 'Calendar date, YYYY-MM-DD.',
})
