import pino, { type Logger } from 'pino';

/** Structured JSON logs; secrets and e-mail addresses never reach them. */
export function createLogger(name: string, level: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.apiKey',
        '*.api_key',
        '*.clientSecret',
        '*.client_secret',
        '*.secret',
        '*.email',
        '*.user_email',
      ],
      censor: '[redacted]',
    },
  });
}
