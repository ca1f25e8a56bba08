/**
 * The GraphQL side of the edge checks (src/http/input.ts covers bodies and variables sent over HTTP): a NUL byte
 * in a string literal of the document is refused at validation, and a subscription sent over HTTP is a client
 * error, since subscriptions are served over graphql-ws.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

/** Validation rule: string literals hold no NUL byte (PostgreSQL cannot store one; GitLab refuses them). */
export function NoNullBytes(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      if (node.value.includes('\0')) context.reportError(new GraphQLError('A string may not contain a null byte.', { nodes: [node] }));
    },
  };
}

export const noSubscriptionsOverHttp: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== 'subscription') return;
        throw new GraphQLError('Subscriptions are served over WebSocket (graphql-ws) on this path, not over HTTP.', {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      },
    };
  },
};
