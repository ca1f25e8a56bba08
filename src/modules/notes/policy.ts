/**
 * GitLab's abilities over notes: ProjectPolicy's `create_note` (guest access: members, and any signed-in user on a
 * project they can see that is public, or internal for non-external users; never on an archived project) and
 * `set_note_created_at` (administrators and Owners), and NotePolicy's `admin_note` (editing and deleting a note: its
 * author, or the project's Maintainers; never a system note, nor on an archived project) and `resolve_note` (resolving
 * a thread or one of its notes: Developers, the note's author, the noteable's author), and `read_internal_note`
 * (internal notes: Reporters and above; the notes engine asks it on every read and hides such notes from others,
 * their authors too, as NotePolicy's `internal & ~can_read_internal_note` prevents even theirs). The noteable's own read
 * ability (the kind's, noteables.ts) is asked before any of them, as NotePolicy prevents `admin_note` to those who
 * cannot read the noteable.
 */
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, allOf, groupsOnly, namespaceMember, projectLevel, projectMember, projectOwner, unlessArchived, visible, type NamespaceSubject, type ProjectSubject, type Rule } from '../../auth/rules.js';
import type { Prisma } from '../../db/database.js';

const { GUEST, REPORTER, DEVELOPER, MAINTAINER } = AccessLevel;

/** Any signed-in user. */
const signedIn: Rule<ProjectSubject, Prisma.ProjectWhereInput> = {
  allows: (actor) => !!actor.viewer,
  where: (actor) => !!actor.viewer,
};

/** A note as NotePolicy reads it: its author, whether it is a system note, and its project. */
export interface NoteSubject {
  authorId: number;
  system: boolean;
  project: ProjectSubject;
}

/** NotePolicy's `admin_note`; asked of one note at a time, never a list filter. */
const adminNote: Rule<NoteSubject, never> = {
  allows: (actor, note) =>
    !note.system &&
    !note.project.archived &&
    (!!actor.viewer?.admin || (actor.viewer !== null && note.authorId === actor.viewer.id) || projectLevel(actor, note.project) >= MAINTAINER),
  where: () => false,
};

/** What resolving reads: the project, and who may resolve whatever their level (the note's and the noteable's authors). */
export interface ResolveSubject {
  project: ProjectSubject;
  authorIds: readonly (number | null | undefined)[];
}

/** NotePolicy's and ProjectPolicy's `resolve_note`; asked of one thread or note at a time, never a list filter. */
const resolveNote: Rule<ResolveSubject, never> = {
  allows: (actor, subject) =>
    !subject.project.archived &&
    actor.viewer !== null &&
    (actor.viewer.admin || subject.authorIds.includes(actor.viewer.id) || projectLevel(actor, subject.project) >= DEVELOPER),
  where: () => false,
};

export const notesPolicy = {
  /**
   * NotePolicy's `can_read_internal_note` (IssuablePolicy's and EpicPolicy's `read_internal_note`), which also grants
   * `mark_note_as_internal`: the project's Reporters and above, and administrators.
   */
  read_internal_note: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER)),
  /** The same in a group, for its epics' notes: the group's Reporters and above (inherited too), and administrators. */
  read_group_internal_note: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(REPORTER))),
  create_note: unlessArchived(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(GUEST), allOf(signedIn, visible()))),
  set_note_created_at: projectOwner,
  admin_note: adminNote,
  resolve_note: resolveNote,
};

type NotesPolicyRules = typeof notesPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends NotesPolicyRules {}
}
