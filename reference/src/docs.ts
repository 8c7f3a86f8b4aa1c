// Starts Swagger UI (swagger-ui-bundle.js, loaded before this script) on the gateway's own
// OpenAPI document. Nothing here reaches another origin: the validator badge, which would send
// the document to validator.swagger.io, is off, and requests from "Try it out" go to this
// gateway (the document declares no other server).
interface SwaggerUIOptions {
  url: string;
  dom_id: string;
  validatorUrl: null;
  deepLinking: boolean;
  persistAuthorization: boolean;
  tryItOutEnabled: boolean;
  displayRequestDuration: boolean;
}

declare global {
  interface Window {
    SwaggerUIBundle?: (options: SwaggerUIOptions) => unknown;
  }
}

const start = window.SwaggerUIBundle;
const root = document.getElementById('swagger-ui');
if (!start) {
  if (root) root.textContent = 'Swagger UI did not load (/docs/assets/swagger-ui-bundle.js).';
} else {
  start({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    // A pasted key lives only as long as the page: it is a secret key.
    persistAuthorization: false,
    tryItOutEnabled: false,
    displayRequestDuration: true,
  });
}

export {};
