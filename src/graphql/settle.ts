/** Apollo: a GraphQL request answers once the events it published reached this replica's subscribers (Context.settle). */
import type { ApolloServerPlugin } from '@apollo/server';
import type { Context } from '../context.js';

export const settleEvents: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue, response }) {
        // A failed operation may have published in a transaction that rolled back: nothing would come to wait for.
        if (response.body.kind === 'single' && response.body.singleResult.errors?.length) return;
        await contextValue?.settle?.();
      },
    };
  },
};
