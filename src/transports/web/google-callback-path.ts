/** Where Google sends the person back after signing in; registered as the redirect URI on the OAuth client. */
export const GOOGLE_CALLBACK_PATH = '/connect/google/callback';
