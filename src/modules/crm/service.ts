/**
 * Owns customer relations (GitLab's CustomerRelations, 16.3): the contacts and organizations of root groups, with
 * Crm::ContactsFinder's and Crm::OrganizationsFinder's filters and orders, the create and update services' rules
 * and words, and the contacts of issues (Issues::SetCrmContactsService, its system note "added 2 contacts").
 * A group's lists are its root group's, which alone holds contacts; what the viewer may not read is an empty list.
 */
import DataLoader from 'dataloader';
import type { Prisma } from '../../db/database.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';
import { badRequest, invalid, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { GroupsService } from '../groups/service.js';
import { ISSUE_UPDATED, type IssueUpdatedMessage } from '../issues/live.js';
import type { IssueRow, IssuesService } from '../issues/service.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { NotesService } from '../notes/service.js';
import type { ProjectRow } from '../projects/service.js';
import { toSentence } from '../resource_events/issuables.js';
import { crmGroupOfIssue } from './policy.js';

export type ContactRow = Prisma.CrmContactGetPayload<object>;
export type OrganizationRow = Prisma.CrmOrganizationGetPayload<object>;

/** GitLab's enum of both models: inactive 0, active 1. */
export const ACTIVE = 1;
export const INACTIVE = 0;

export type StateFilter = 'active' | 'inactive' | 'all';
export type SortKey = readonly [field: string, direction: 'asc' | 'desc'];

/** Issues::SetCrmContactsService::MAX_ADDITIONAL_CONTACTS. */
export const MAX_ADDITIONAL_CONTACTS = 6;

export interface ListFilters {
  ids?: number[] | null;
  search?: string | null;
  state?: StateFilter | null;
}

export interface ContactInput {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  phone?: string | null;
  description?: string | null;
  organizationId?: number | null;
  active?: boolean | null;
}

export interface OrganizationInput {
  name?: string | null;
  defaultRate?: number | null;
  description?: string | null;
  active?: boolean | null;
}

export type OperationMode = 'REPLACE' | 'APPEND' | 'REMOVE';

const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";
/** numeric(18, 2): what the column holds. */
const MAX_RATE = 1e16;
/** ValidateEmail's shape of an address: a local part, `@`, a dotted domain, nothing blank. */
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

const tooLong = (max: number) => `is too long (maximum is ${max} characters)`;
/** StripAttribute: leading and trailing whitespace gone; only for the attributes GitLab strips. */
const strip = (v: string | null | undefined) => (v == null ? v : v.trim());

/** Gitlab::SQL::Pattern#fuzzy_search: every word of the query in one column (ILIKE), any of the columns. */
function fuzzy(columns: readonly string[], search: string | null | undefined): Record<string, unknown> | null {
  const words = (search ?? '').trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  return { OR: columns.map((c) => ({ AND: words.map((w) => ({ [c]: containsIgnoringCase(w) })) })) };
}

/** A column's order as GitLab's order_scope_asc/desc give it (NULLS LAST both ways), then the id. */
function orderOf(field: string, direction: 'asc' | 'desc', nullable: boolean): Record<string, unknown>[] {
  // Prisma cannot place nulls in an order by a relation's column: PostgreSQL's default puts contacts without an
  // organization last ascending (as GitLab) but first descending (GitLab: last).
  if (field === 'organization') return [{ organization: { name: direction } }, { id: 'asc' }];
  const first = nullable ? { [field]: { sort: direction, nulls: 'last' } } : { [field]: direction };
  // sort_by_name's keyset order: last name, first name, id.
  if (field === 'lastName') return [first, { firstName: direction }, { id: 'asc' }];
  return [first, { id: 'asc' }];
}

export class CrmService {
  constructor(
    private readonly base: ServiceBase,
    private readonly groups: GroupsService,
    private readonly issues: IssuesService,
    private readonly notes: NotesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** The root group holding a group's contacts, when the viewer may read them there (ContactsFinder#root_group); else null. */
  private async readableRoot(group: NamespaceRow, ability: 'read_crm_contact' | 'read_crm_organization'): Promise<number | null> {
    if (group.kind !== 'group') return null;
    const root = group.traversalIds[0] ?? group.id;
    const subject = { id: root, kind: 'group', visibility: group.visibility, ownerId: null, traversalIds: [root] };
    return (await this.base.access.can(ability, subject)) ? root : null;
  }

  private contactWhere(root: number, filters: ListFilters, withState = true): Prisma.CrmContactWhereInput {
    const and: Prisma.CrmContactWhereInput[] = [{ groupId: root }];
    if (filters.ids?.length) and.push({ id: { in: filters.ids } });
    if (withState && filters.state && filters.state !== 'all') and.push({ state: filters.state === 'active' ? ACTIVE : INACTIVE });
    const search = fuzzy(['firstName', 'lastName', 'email', 'description'], filters.search);
    if (search) and.push(search as Prisma.CrmContactWhereInput);
    return { AND: and };
  }

  private organizationWhere(root: number, filters: ListFilters, withState = true): Prisma.CrmOrganizationWhereInput {
    const and: Prisma.CrmOrganizationWhereInput[] = [{ groupId: root }];
    if (filters.ids?.length) and.push({ id: { in: filters.ids } });
    if (withState && filters.state && filters.state !== 'all') and.push({ state: filters.state === 'active' ? ACTIVE : INACTIVE });
    const search = fuzzy(['name', 'description'], filters.search);
    if (search) and.push(search as Prisma.CrmOrganizationWhereInput);
    return { AND: and };
  }

  /** Group.contacts: Crm::ContactsFinder with the resolver's sort. */
  async contacts(group: NamespaceRow, filters: ListFilters, sort: SortKey, page: PageArgs) {
    const root = await this.readableRoot(group, 'read_crm_contact');
    if (root === null) return connection<ContactRow>(page, async () => [], async () => 0);
    const where = this.contactWhere(root, filters);
    const nullable = ['email', 'phone', 'description'].includes(sort[0]);
    const orderBy = orderOf(sort[0], sort[1], nullable) as Prisma.CrmContactOrderByWithRelationInput[];
    return connection(
      page,
      ({ skip, take }) => this.db.crmContact.findMany({ where, orderBy, skip, take }),
      () => this.db.crmContact.count({ where }),
    );
  }

  /** Group.organizations: Crm::OrganizationsFinder with the resolver's sort. */
  async organizations(group: NamespaceRow, filters: ListFilters, sort: SortKey, page: PageArgs) {
    const root = await this.readableRoot(group, 'read_crm_organization');
    if (root === null) return connection<OrganizationRow>(page, async () => [], async () => 0);
    const where = this.organizationWhere(root, filters);
    const nullable = ['defaultRate', 'description'].includes(sort[0]);
    const orderBy = orderOf(sort[0], sort[1], nullable) as Prisma.CrmOrganizationOrderByWithRelationInput[];
    return connection(
      page,
      ({ skip, take }) => this.db.crmOrganization.findMany({ where, orderBy, skip, take }),
      () => this.db.crmOrganization.count({ where }),
    );
  }

  /** ContactStateCounts: the finder's contacts counted by state; null when the viewer may not read them. */
  async contactStateCounts(group: NamespaceRow, filters: ListFilters) {
    const root = await this.readableRoot(group, 'read_crm_contact');
    if (root === null) return null;
    const rows = await this.db.crmContact.groupBy({ by: ['state'], where: this.contactWhere(root, filters), _count: { _all: true } });
    return stateCounts(rows);
  }

  /** OrganizationStateCounts, as contactStateCounts. */
  async organizationStateCounts(group: NamespaceRow, filters: ListFilters) {
    const root = await this.readableRoot(group, 'read_crm_organization');
    if (root === null) return null;
    const rows = await this.db.crmOrganization.groupBy({ by: ['state'], where: this.organizationWhere(root, filters), _count: { _all: true } });
    return stateCounts(rows);
  }

  private organizationLoader?: DataLoader<number, OrganizationRow | null>;

  /** A contact's organization (its group's, read with the contact): batched per request. */
  organization(id: number): Promise<OrganizationRow | null> {
    this.organizationLoader ??= new DataLoader(async (ids) => {
      const rows = await this.db.crmOrganization.findMany({ where: { id: { in: [...ids] } } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    });
    return this.organizationLoader.load(id);
  }

  /** The group a contact or organization is created in, when the viewer may manage them there; ResourceNotAvailable otherwise. */
  private async managedGroup(group: NamespaceRow | null, ability: 'admin_crm_contact' | 'admin_crm_organization'): Promise<NamespaceRow> {
    if (!group || !(await this.base.access.can(ability, group))) throw notFound();
    return group;
  }

  private groupOf(id: number): Promise<NamespaceRow | null> {
    return this.groups.find({ id });
  }

  /** CreateService/UpdateService's organization check: one of the contact's group. */
  private async checkOrganization(groupId: number, organizationId: number | null | undefined): Promise<void> {
    if (organizationId == null) return;
    const organization = await this.db.crmOrganization.findUnique({ where: { id: organizationId }, select: { groupId: true } });
    if (!organization || organization.groupId !== groupId) throw badRequest('The specified organization was not found or does not belong to this group');
  }

  /** CustomerRelations::Contact's validations, in Rails' words. */
  private async contactErrors(group: NamespaceRow, c: ContactInput, id?: number): Promise<void> {
    const errors: Record<string, string[]> = {};
    const add = (field: string, text: string) => (errors[field] ??= []).push(text);
    if (c.phone && c.phone.length > 32) add('phone', tooLong(32));
    if (!c.firstName) add('first_name', "can't be blank");
    else if (c.firstName.length > 255) add('first_name', tooLong(255));
    if (!c.lastName) add('last_name', "can't be blank");
    else if (c.lastName.length > 255) add('last_name', tooLong(255));
    if (c.email != null) {
      if (c.email.length > 255) add('email', tooLong(255));
      const taken = await this.db.crmContact.findFirst({
        where: { groupId: group.id, email: equalsIgnoringCase(c.email), ...(id ? { id: { not: id } } : {}) },
        select: { id: true },
      });
      if (taken) add('email', 'has already been taken');
      if (!EMAIL.test(c.email)) add('email', 'is invalid');
    }
    if (c.description && c.description.length > 1024) add('description', tooLong(1024));
    if (group.parentId !== null) add('base', 'contacts can only be added to root groups');
    if (Object.keys(errors).length) throw invalid(errors);
  }

  /** CustomerRelations::Organization's validations, in Rails' words. */
  private async organizationErrors(group: NamespaceRow, o: OrganizationInput, id?: number): Promise<void> {
    const errors: Record<string, string[]> = {};
    const add = (field: string, text: string) => (errors[field] ??= []).push(text);
    if (!o.name) add('name', "can't be blank");
    else {
      const taken = await this.db.crmOrganization.findFirst({
        where: { groupId: group.id, name: equalsIgnoringCase(o.name), ...(id ? { id: { not: id } } : {}) },
        select: { id: true },
      });
      if (taken) add('name', 'has already been taken');
      if (o.name.length > 255) add('name', tooLong(255));
    }
    if (o.description && o.description.length > 1024) add('description', tooLong(1024));
    if (o.defaultRate != null && Math.abs(o.defaultRate) >= MAX_RATE) add('default_rate', `must be less than ${MAX_RATE}`);
    if (group.parentId !== null) add('base', 'organizations can only be added to root groups');
    if (Object.keys(errors).length) throw invalid(errors);
  }

  /** CustomerRelations::Contacts::CreateService. */
  async createContact(groupId: number, input: ContactInput): Promise<ContactRow> {
    const group = await this.managedGroup(await this.groupOf(groupId), 'admin_crm_contact');
    await this.checkOrganization(group.id, input.organizationId);
    const c = { ...input, firstName: strip(input.firstName), lastName: strip(input.lastName), phone: strip(input.phone) };
    await this.contactErrors(group, c);
    return this.db.crmContact.create({
      data: {
        groupId: group.id,
        organizationId: c.organizationId ?? null,
        firstName: c.firstName ?? '',
        lastName: c.lastName ?? '',
        email: c.email ?? null,
        phone: c.phone ?? null,
        description: c.description ?? null,
      },
    });
  }

  /** CustomerRelations::Contacts::UpdateService: the contact (ResourceNotAvailable when missing or not the viewer's to manage). */
  async updateContact(id: number, input: ContactInput): Promise<ContactRow> {
    const contact = await this.db.crmContact.findUnique({ where: { id } });
    const group = await this.managedGroup(contact && (await this.groupOf(contact.groupId)), 'admin_crm_contact');
    if (!contact) throw notFound();
    await this.checkOrganization(group.id, input.organizationId);
    const given = <T>(v: T | null | undefined, old: T): T => (v === undefined ? old : (v as T));
    const c: ContactInput = {
      firstName: given(strip(input.firstName), contact.firstName),
      lastName: given(strip(input.lastName), contact.lastName),
      email: given(input.email, contact.email),
      phone: given(strip(input.phone), contact.phone),
      description: given(input.description, contact.description),
      organizationId: given(input.organizationId, contact.organizationId),
    };
    await this.contactErrors(group, c, contact.id);
    const state = input.active == null ? contact.state : input.active ? ACTIVE : INACTIVE;
    return this.db.crmContact.update({
      where: { id: contact.id },
      data: {
        firstName: c.firstName ?? '',
        lastName: c.lastName ?? '',
        email: c.email ?? null,
        phone: c.phone ?? null,
        description: c.description ?? null,
        organizationId: c.organizationId ?? null,
        state,
        updatedAt: new Date(),
      },
    });
  }

  /** CustomerRelations::Organizations::CreateService. */
  async createOrganization(groupId: number, input: OrganizationInput): Promise<OrganizationRow> {
    const group = await this.managedGroup(await this.groupOf(groupId), 'admin_crm_organization');
    const o = { ...input, name: strip(input.name) };
    await this.organizationErrors(group, o);
    return this.db.crmOrganization.create({
      data: { groupId: group.id, name: o.name ?? '', defaultRate: o.defaultRate ?? null, description: o.description ?? null },
    });
  }

  /** CustomerRelations::Organizations::UpdateService. */
  async updateOrganization(id: number, input: OrganizationInput): Promise<OrganizationRow> {
    const organization = await this.db.crmOrganization.findUnique({ where: { id } });
    const group = await this.managedGroup(organization && (await this.groupOf(organization.groupId)), 'admin_crm_organization');
    if (!organization) throw notFound();
    const o: OrganizationInput = {
      name: input.name === undefined ? organization.name : strip(input.name),
      defaultRate: input.defaultRate === undefined ? (organization.defaultRate === null ? null : Number(organization.defaultRate)) : input.defaultRate,
      description: input.description === undefined ? organization.description : input.description,
    };
    await this.organizationErrors(group, o, organization.id);
    const state = input.active == null ? organization.state : input.active ? ACTIVE : INACTIVE;
    return this.db.crmOrganization.update({
      where: { id: organization.id },
      data: { name: o.name ?? '', defaultRate: o.defaultRate ?? null, description: o.description ?? null, state, updatedAt: new Date() },
    });
  }

  private issueContactsLoader?: DataLoader<number, ContactRow[]>;

  /**
   * Issue.customerRelationsContacts: the issue's contacts, oldest link first, when the viewer may read the contacts
   * of its project's root group (IssuePolicy's `read_crm_contacts`); none otherwise. Batched per request.
   */
  async issueContacts(issue: IssueRow): Promise<ContactRow[]> {
    if (!(await this.base.access.can('read_crm_contacts', await this.issues.subject(issue)))) return [];
    this.issueContactsLoader ??= new DataLoader(async (ids) => {
      const links = await this.db.issueCrmContact.findMany({ where: { issueId: { in: [...ids] } }, include: { contact: true }, orderBy: { id: 'asc' } });
      const byIssue = new Map(ids.map((id) => [id, [] as ContactRow[]]));
      for (const link of links) byIssue.get(link.issueId)?.push(link.contact);
      return ids.map((id) => byIssue.get(id) ?? []);
    });
    // Only the root group's contacts are linked: transfers drop the others (the database's triggers, migration
    // 20270128600001_crm_transfers).
    return this.issueContactsLoader.load(issue.id);
  }

  /**
   * Mutations::Issues::SetCrmContacts and Issues::SetCrmContactsService: replace, add or remove an issue's contacts
   * by id. The issue must be one the viewer may set contacts on (ResourceNotAvailable otherwise), in a project of a
   * group ("Feature disabled" for a user's project); at most six added at once; a contact not of the root group is
   * refused by id, in GitLab's words, and nothing changes. One system note counts what changed.
   */
  async setIssueContacts(project: ProjectRow, iid: number, contactIds: number[], mode: OperationMode): Promise<IssueRow> {
    const viewer = this.base.access.requireViewer();
    const issue = await this.issues.find(project, iid);
    if (!issue) throw notFound();
    const subject = await this.issues.subject(issue);
    if (!(await this.base.access.can('set_issue_crm_contacts', subject))) throw notFound();
    const root = crmGroupOfIssue(subject);
    if (!root) throw notFound();
    const existing = (await this.db.issueCrmContact.findMany({ where: { issueId: issue.id }, select: { contactId: true } })).map((l) => l.contactId);
    const ids = [...new Set(contactIds)];
    let add: number[] = [];
    let remove: number[] = [];
    if (mode === 'REPLACE') {
      add = ids.filter((id) => !existing.includes(id));
      remove = existing.filter((id) => !ids.includes(id));
    } else if (mode === 'APPEND') add = ids.filter((id) => !existing.includes(id));
    else remove = ids.filter((id) => existing.includes(id));
    // valid_params?: `replace_ids` present, or `add_ids`/`remove_ids` present; an empty append or removal is neither.
    if (mode !== 'REPLACE' && !contactIds.length) throw badRequest('You cannot combine replace_ids with add_ids or remove_ids');
    // too_many?: the ids to add as given when appending, those not yet linked when replacing.
    if ((mode === 'APPEND' ? contactIds.length : add.length) > MAX_ADDITIONAL_CONTACTS) throw badRequest(`You can only add up to ${MAX_ADDITIONAL_CONTACTS} contacts at one time`);
    const found = add.length ? await this.db.crmContact.findMany({ where: { id: { in: add }, groupId: root.id }, select: { id: true } }) : [];
    const known = new Set(found.map((c) => c.id));
    const refused = add.filter((id) => !known.has(id));
    if (refused.length) throw badRequest(`Issue customer relations contacts ${toSentence(refused.map((id) => `${id}: ${RESOURCE_NOT_AVAILABLE}`))}`);
    if (!add.length && !remove.length) return issue;
    return this.db.$transaction(async (tx) => {
      const now = new Date();
      if (add.length) await tx.issueCrmContact.createMany({ data: add.map((contactId) => ({ issueId: issue.id, contactId, createdAt: now, updatedAt: now })), skipDuplicates: true });
      const removed = remove.length ? (await tx.issueCrmContact.deleteMany({ where: { issueId: issue.id, contactId: { in: remove } } })).count : 0;
      const touched = await tx.issue.update({ where: { id: issue.id }, data: { updatedAt: now }, select: { updatedAt: true } });
      const body = contactsNote(add.length, removed);
      if (body) await this.notes.createSystemNote(tx, { type: 'Issue', id: issue.id, projectId: issue.projectId, groupId: null }, viewer.id, body, now);
      // GraphqlTriggers.issue_crm_contacts_updated: issueCrmContactsUpdated's subscribers hear it on commit.
      await this.base.publish(ISSUE_UPDATED, { issueId: issue.id, projectId: issue.projectId, parts: ['crmContacts'] } satisfies IssueUpdatedMessage, tx);
      return { ...issue, ...touched };
    });
  }

  /**
   * The `/add_contacts` and `/remove_contacts` quick actions (Issues::SetCrmContactsService with `add_emails` or
   * `remove_emails`): the contacts of the issue's root group with those emails (any case), added or removed as
   * setIssueContacts adds and removes them; emails of no contact are refused in GitLab's words.
   */
  async setIssueContactsByEmail(project: ProjectRow, iid: number, emails: readonly string[], mode: 'APPEND' | 'REMOVE'): Promise<IssueRow> {
    const issue = await this.issues.find(project, iid);
    if (!issue) throw notFound();
    const root = crmGroupOfIssue(await this.issues.subject(issue));
    const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
    const found = root && wanted.length ? await this.db.crmContact.findMany({ where: { groupId: root.id, OR: wanted.map((email) => ({ email: equalsIgnoringCase(email) })) }, select: { id: true, email: true } }) : [];
    const known = new Set(found.map((c) => c.email?.toLowerCase()));
    const refused = wanted.filter((e) => !known.has(e));
    if (refused.length) throw badRequest(`Issue customer relations contacts ${toSentence(refused.map((e) => `${e}: ${RESOURCE_NOT_AVAILABLE}`))}`);
    return this.setIssueContacts(project, iid, found.map((c) => c.id), mode);
  }
}

/** SystemNotes::IssuablesService#change_issuable_contacts: "added 2 contacts and removed 1 contact". */
function contactsNote(added: number, removed: number): string | null {
  const parts: string[] = [];
  if (added > 0) parts.push(`added ${added} ${added === 1 ? 'contact' : 'contacts'}`);
  if (removed > 0) parts.push(`removed ${removed} ${removed === 1 ? 'contact' : 'contacts'}`);
  return parts.length ? parts.join(' and ') : null;
}

function stateCounts(rows: { state: number; _count: { _all: number } }[]) {
  const of = (state: number) => rows.find((r) => r.state === state)?._count._all ?? 0;
  const active = of(ACTIVE);
  const inactive = of(INACTIVE);
  return { active, inactive, all: active + inactive };
}
