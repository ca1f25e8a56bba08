/** Who a request acts as. `null` is an anonymous caller; services decide what anonymous callers may do. */
export interface Viewer {
  id: number;
  username: string;
  admin: boolean;
  external: boolean;
  bot: boolean;
  /** Whether the user may create top-level groups. */
  canCreateGroup: boolean;
  /** ID of the token that authenticated the request. */
  tokenId: number;
  /** The day that token expires (it stops working at the start of that day), if it does. */
  tokenExpiresAt: Date | null;
  scopes: readonly string[];
}
