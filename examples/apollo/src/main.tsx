import { ApolloProvider } from '@apollo/client/react'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createApolloClient } from '../../../clients/apollo'
import { gatewayUrl } from '../../shared/ui'
import { App } from './App'

const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ApolloProvider client={createApolloClient({ url: gatewayUrl, persisted: true })}>
        <App />
      </ApolloProvider>
    </StrictMode>,
  )
}
