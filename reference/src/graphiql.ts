// GraphiQL on this gateway: queries and mutations over HTTP POST /graphql, subscriptions over
// graphql-ws on the same host. The key the user pastes in the Headers editor authenticates
// both: sent as the Authorization header over HTTP, and as the socket's connection params
// (graphql-ws reads `Authorization` there too). The schema is introspected again whenever that
// key changes, so pasting it is enough to get completion and the docs explorer.
import { createElement, useCallback, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { GraphQLError } from 'graphql';
import { createGraphiQLFetcher, type Fetcher } from '@graphiql/toolkit';
import { setNonce } from 'get-nonce';
import 'graphiql/style.css';
import '../graphiql-page.css';

// The page's CSP allows inline <style> elements only with this response's nonce: the one that
// Radix's dialogs add (react-remove-scroll, through get-nonce) carries it.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
if (nonce) setNonce(nonce);

const DEFAULT_HEADERS = JSON.stringify({ Authorization: 'Bearer sk_test_...' }, null, 2);

const DEFAULT_QUERY = `# Paste your sandbox secret key (sk_test_...) in the Headers tab below: the schema
# loads as soon as it is there. Subscriptions run over graphql-ws with the same key.
query Merchant {
  merchant {
    id
    name
  }
}

subscription Deposits {
  depositUpdated {
    id
    status
  }
}
`;

const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;

/** The Authorization header of `headers` (either case), or '' when there is none. */
function authorizationIn(headers: Record<string, unknown> | null | undefined): string {
  const value = headers?.Authorization ?? headers?.authorization;
  return typeof value === 'string' ? value.trim() : '';
}

/** The Authorization value of the Headers editor's JSON, or '' while it is not valid. */
function authorizationOf(headersText: string): string {
  try {
    return authorizationIn(JSON.parse(headersText) as Record<string, unknown> | null);
  } catch {
    return '';
  }
}

const PLACEHOLDER = authorizationOf(DEFAULT_HEADERS);
const NO_KEY = {
  errors: [
    new GraphQLError(
      'Paste your secret key in the Headers tab: {"Authorization": "Bearer sk_test_..."}',
    ),
  ],
};

/**
 * One fetcher per key (the key itself comes with each call: GraphiQL passes the editor's
 * headers). Without a key, the schema is not asked for: the answer would be a 401, and failed
 * authentications count against this address's limit.
 */
function createFetcher(_forKey: string): Fetcher {
  const fetcher = createGraphiQLFetcher({
    url: '/graphql',
    subscriptionUrl: socketUrl,
    enableIncrementalDelivery: false,
  });
  return (params, options) => {
    const key = authorizationIn(options?.headers);
    if (params.operationName === 'IntrospectionQuery' && (!key || key === PLACEHOLDER)) {
      return Promise.resolve(NO_KEY);
    }
    return fetcher(params, options);
  };
}

/** A key typed in by hand is read once the typing pauses: each try with half a key fails. */
const SETTLE_MS = 400;

function Playground() {
  const [authorization, setAuthorization] = useState(() => authorizationOf(DEFAULT_HEADERS));
  // A new fetcher makes GraphiQL introspect again; the headers themselves reach every request
  // from the editor (over HTTP as headers, over the socket as connection params).
  const fetcher = useMemo(() => createFetcher(authorization), [authorization]);
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  const onEditHeaders = useCallback((text: string) => {
    clearTimeout(pending.current);
    pending.current = setTimeout(() => setAuthorization(authorizationOf(text)), SETTLE_MS);
  }, []);
  return createElement(GraphiQL, {
    fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultHeaders: DEFAULT_HEADERS,
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
    onEditHeaders,
  });
}

const root = document.getElementById('graphiql');
if (root) createRoot(root).render(createElement(Playground));
