/** GraphQL resolvers of quick actions: NoteCommands is a plain object of the notes engine (NotesService#restCreation). */
export const quickActionsResolvers = {};
