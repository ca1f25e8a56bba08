/**
 * The OAuth 2 endpoints' errors, in Doorkeeper's JSON and words (its `en.yml`): `{"error": …, "error_description": …}`,
 * 401 for client authentication and bad tokens, 400 otherwise. They belong to the /oauth protocol, not to the API
 * (whose errors are src/errors.ts's); only src/modules/applications throws and answers them.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: number,
  ) {
    super(description);
  }

  get body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }

  /** Doorkeeper's `WWW-Authenticate` on 401s. */
  get headers(): Record<string, string> {
    if (this.status !== 401) return {};
    return { 'WWW-Authenticate': `Bearer realm="Doorkeeper", error="${this.error}", error_description="${this.description}"` };
  }
}

const TOKEN_PROBLEMS = {
  unknown: 'The access token is invalid',
  revoked: 'The access token was revoked',
  expired: 'The access token expired',
} as const;

export const oauthErrors = {
  missing: (param: string) => new OAuthError('invalid_request', `Missing required parameter: ${param}.`, 400),
  invalidRequest: () =>
    new OAuthError('invalid_request', 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.', 400),
  invalidClient: () =>
    new OAuthError('invalid_client', 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.', 401),
  invalidGrant: () =>
    new OAuthError(
      'invalid_grant',
      'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
      400,
    ),
  unsupportedGrantType: () => new OAuthError('unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.', 400),
  invalidScope: () => new OAuthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.', 400),
  invalidRedirectUri: () => new OAuthError('invalid_redirect_uri', "The requested redirect uri is malformed or doesn't match client redirect URI.", 400),
  unsupportedResponseType: () => new OAuthError('unsupported_response_type', 'The authorization server does not support this response type.', 400),
  invalidCodeChallengeMethod: () => new OAuthError('invalid_request', 'The code_challenge_method must be one of plain, S256.', 400),
  accessDenied: () => new OAuthError('access_denied', 'The resource owner or authorization server denied the request.', 400),
  unauthorizedRevoke: () => new OAuthError('unauthorized_client', 'You are not authorized to revoke this token', 403),
  invalidToken: (problem: keyof typeof TOKEN_PROBLEMS) => new OAuthError('invalid_token', TOKEN_PROBLEMS[problem], 401),
};
