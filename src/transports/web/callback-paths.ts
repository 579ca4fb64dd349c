/** Where each provider sends the person back after signing in; registered as the redirect URI of its OAuth app. */
export const CALLBACK_PATH = {
  google: '/connect/google/callback',
  microsoft: '/connect/microsoft/callback',
} as const;
