/**
 * Commands of epics only (GitLab EE's EpicActions): a parent and children in the epic tree, through the epics
 * module's own update, which asks `admin_epic` and refuses what it refuses for the Epics API.
 */
import type { EpicRow } from '../epics/service.js';
import { command, type AnyCommand, type Run } from './engine.js';
import { findEpics } from './params.js';

const EPIC = ['Epic'] as const;

const epicOf = (run: Run): EpicRow | null => (run.target.type === 'Epic' ? run.target.epic : null);

/** Epic#to_reference from the target: `&4`, or `group/path&4` in another group. */
async function epicRef(run: Run, epic: EpicRow): Promise<string> {
  const t = run.target;
  if (t.type === 'Epic' && t.group.id === epic.groupId) return `&${epic.iid}`;
  const group = await run.services.groups.find({ id: epic.groupId });
  return `${group?.fullPath ?? ''}&${epic.iid}`;
}

type Epics = Awaited<ReturnType<typeof findEpics>>;

/** `/child_epic` and `/remove_child_epic`: the first epic named, a child to add or to remove, recorded under `key`. */
function childCommand(name: string, key: string, check: (run: Run, child: EpicRow) => string | null, said: (ref: string) => string): AnyCommand {
  return command<Epics>({
    name,
    types: EPIC,
    takes: 'required',
    available: async (run) => run.persisted && (await run.canUpdate()),
    parse: (run, arg) => findEpics(run, arg),
    execute: async (run, epics) => {
      const child = epics?.[0];
      const refused = child ? check(run, child) : 'Child epic does not exist.';
      if (refused) return void run.messages.set(name, refused);
      run.updates[key] = [...((run.updates[key] as number[] | undefined) ?? []), child!.id];
      run.messages.set(name, said(await epicRef(run, child!)));
    },
  });
}

export const epicActions: AnyCommand[] = [
  childCommand(
    'child_epic',
    'child_epic_ids',
    (run, child) => (child.id === epicOf(run)!.id ? 'Child epic does not exist.' : child.parentId === epicOf(run)!.id ? 'Given epic is already related to this epic.' : null),
    (ref) => `Added ${ref} as a child epic.`,
  ),
  childCommand('remove_child_epic', 'remove_child_epic_ids', (run, child) => (child.parentId !== epicOf(run)!.id ? 'Child epic does not exist.' : null), (ref) => `Removed ${ref} from child epics.`),
  command<Epics>({
    name: 'parent_epic',
    aliases: ['set_parent_epic'],
    types: EPIC,
    takes: 'required',
    available: async (run) => run.persisted && (await run.canUpdate()),
    parse: (run, arg) => findEpics(run, arg),
    execute: async (run, epics) => {
      const parent = epics?.[0];
      const epic = epicOf(run)!;
      if (!parent || parent.id === epic.id) return void run.messages.set('parent_epic', 'Parent epic does not exist.');
      if (epic.parentId === parent.id) return void run.messages.set('parent_epic', `Given epic is already related to this epic.`);
      run.updates.parent_id = parent.id;
      run.messages.set('parent_epic', `Set ${await epicRef(run, parent)} as the parent epic.`);
    },
  }),
  command({
    name: 'remove_parent_epic',
    types: EPIC,
    takes: 'none',
    available: async (run) => epicOf(run)?.parentId != null && (await run.canUpdate()),
    execute: async (run) => {
      const parent = await run.services.epics.byId(epicOf(run)!.parentId!);
      run.updates.parent_id = null;
      run.messages.set('remove_parent_epic', parent ? `Removed parent epic ${await epicRef(run, parent)}.` : 'Parent epic does not exist.');
    },
  }),
];
