/** Apollo: a GraphQL request answers once the events it published reached this replica's subscribers (Context.settle). */
import type { ApolloServerPlugin } from '@apollo/server';
import type { Context } from '../context.js';

export const settleEvents: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue }) {
        await contextValue?.settle?.();
      },
    };
  },
};
