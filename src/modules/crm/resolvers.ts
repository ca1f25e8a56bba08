/** GraphQL resolvers of customer relations: contacts, organizations, their group lists, an issue's contacts. */
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, iidOf, parseRef } from '../../graphql/ids.js';
import type { IssueRow } from '../issues/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { ACTIVE, type ContactInput, type ContactRow, type ListFilters, type OperationMode, type OrganizationInput, type OrganizationRow, type SortKey, type StateFilter } from './service.js';

/** ContactSort's and OrganizationSort's values as a column and direction (the deprecated lower-case ones too). */
const SORTS: Record<string, SortKey> = {
  CREATED_ASC: ['createdAt', 'asc'],
  CREATED_DESC: ['createdAt', 'desc'],
  UPDATED_ASC: ['updatedAt', 'asc'],
  UPDATED_DESC: ['updatedAt', 'desc'],
  created_asc: ['createdAt', 'asc'],
  created_desc: ['createdAt', 'desc'],
  updated_asc: ['updatedAt', 'asc'],
  updated_desc: ['updatedAt', 'desc'],
  DESCRIPTION_ASC: ['description', 'asc'],
  DESCRIPTION_DESC: ['description', 'desc'],
  EMAIL_ASC: ['email', 'asc'],
  EMAIL_DESC: ['email', 'desc'],
  FIRST_NAME_ASC: ['firstName', 'asc'],
  FIRST_NAME_DESC: ['firstName', 'desc'],
  LAST_NAME_ASC: ['lastName', 'asc'],
  LAST_NAME_DESC: ['lastName', 'desc'],
  ORGANIZATION_ASC: ['organization', 'asc'],
  ORGANIZATION_DESC: ['organization', 'desc'],
  PHONE_ASC: ['phone', 'asc'],
  PHONE_DESC: ['phone', 'desc'],
  DEFAULT_RATE_ASC: ['defaultRate', 'asc'],
  DEFAULT_RATE_DESC: ['defaultRate', 'desc'],
  NAME_ASC: ['name', 'asc'],
  NAME_DESC: ['name', 'desc'],
};

type ListArgs = PageArgs & { ids?: number[] | null; search?: string | null; state?: StateFilter | null; sort?: string | null };

const filtersOf = (args: ListArgs): ListFilters => ({ ids: args.ids, search: args.search, state: args.state });

interface IssueKey {
  projectPath: string;
  iid: string;
}

export const crmResolvers = {
  CustomerRelationsContact: {
    id: (c: ContactRow) => globalId('CustomerRelations::Contact', c.id),
    active: (c: ContactRow) => c.state === ACTIVE,
    organization: (c: ContactRow, _a: unknown, ctx: Context) => (c.organizationId === null ? null : ctx.services.crm.organization(c.organizationId)),
  },
  CustomerRelationsOrganization: {
    id: (o: OrganizationRow) => globalId('CustomerRelations::Organization', o.id),
    active: (o: OrganizationRow) => o.state === ACTIVE,
    defaultRate: (o: OrganizationRow) => (o.defaultRate === null ? null : Number(o.defaultRate)),
  },
  Group: {
    contacts: (g: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.crm.contacts(g, filtersOf(args), SORTS[args.sort ?? 'LAST_NAME_ASC'], args),
    contactStateCounts: (g: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.crm.contactStateCounts(g, filtersOf(args)),
    organizations: (g: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.crm.organizations(g, filtersOf(args), SORTS[args.sort ?? 'NAME_ASC'], args),
    organizationStateCounts: (g: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.crm.organizationStateCounts(g, filtersOf(args)),
  },
  Issue: {
    customerRelationsContacts: async (i: IssueRow, args: PageArgs, ctx: Context) => listConnection(args, await ctx.services.crm.issueContacts(i)),
  },
  Mutation: {
    customerRelationsContactCreate: async (_: unknown, input: ContactInput & { groupId: number }, ctx: Context) => ({
      contact: await ctx.services.crm.createContact(input.groupId, input),
    }),
    customerRelationsContactUpdate: async (_: unknown, input: ContactInput & { id: number }, ctx: Context) => ({
      contact: await ctx.services.crm.updateContact(input.id, input),
    }),
    customerRelationsOrganizationCreate: async (_: unknown, input: OrganizationInput & { groupId: number }, ctx: Context) => ({
      organization: await ctx.services.crm.createOrganization(input.groupId, input),
    }),
    customerRelationsOrganizationUpdate: async (_: unknown, input: OrganizationInput & { id: number }, ctx: Context) => ({
      organization: await ctx.services.crm.updateOrganization(input.id, input),
    }),
    issueSetCrmContacts: async (_: unknown, input: IssueKey & { contactIds: number[]; operationMode?: OperationMode | null }, ctx: Context) => ({
      issue: await ctx.services.crm.setIssueContacts(
        await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath')),
        iidOf(input.iid),
        input.contactIds,
        input.operationMode ?? 'REPLACE',
      ),
    }),
  },
};
