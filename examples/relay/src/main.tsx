import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { RelayEnvironmentProvider } from 'react-relay'
import { createEnvironment } from '../../../clients/relay'
import { gatewayUrl } from '../../shared/ui'
import { App } from './App'

const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <RelayEnvironmentProvider environment={createEnvironment({ url: gatewayUrl })}>
        <App />
      </RelayEnvironmentProvider>
    </StrictMode>,
  )
}
