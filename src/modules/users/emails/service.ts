/** Owns users' secondary e-mail addresses (GitLab's Email): listing, adding and removing them. */
import type { PrismaClient } from '../../../db/database.js';
import { invalid, notFound } from '../../../errors.js';
import { connection, type PageArgs } from '../../../graphql/connection.js';
import type { ServiceBase } from '../../module.js';
import type { UserRow, UsersService } from '../service.js';

export type EmailRow = Awaited<ReturnType<PrismaClient['email']['findUniqueOrThrow']>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class EmailsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
  ) {}

  /** The addresses of a user: their own, or any user's for an administrator. */
  async list(user: UserRow, page: PageArgs) {
    await this.base.access.authorize('update_user', user);
    const db = this.base.db;
    const where = { userId: user.id };
    return connection(
      page,
      ({ skip, take }) => db.email.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.email.count({ where }),
    );
  }

  /** `GET /users/:id/emails`: administrators only, asked before the user is looked up. */
  async listOf(userId: number, page: PageArgs) {
    return this.list(await this.users.administered(userId), page);
  }

  /** One address of a user the viewer may manage; NOT_FOUND (`404 Email Not Found`) when the user has none with this ID. */
  async get(user: UserRow, id: number): Promise<EmailRow> {
    await this.base.access.authorize('update_user', user);
    const row = await this.base.db.email.findFirst({ where: { id, userId: user.id } });
    if (!row) throw notFound('Email');
    return row;
  }

  /**
   * Adds an address to the viewer (no `userId`) or, for an administrator, to any user; `skipConfirmation`
   * (administrators) marks it confirmed. Unconfirmed otherwise: this server sends no confirmation mail.
   */
  async create(userId: number | null | undefined, email: string, skipConfirmation: boolean | null | undefined): Promise<EmailRow> {
    const user = await this.users.selfOr(userId);
    const address = email.trim();
    const errors: string[] = [];
    if (!EMAIL.test(address)) errors.push('is invalid');
    else if (await this.users.emailTaken(address)) errors.push('has already been taken');
    if (errors.length) throw invalid({ email: errors });
    const confirmed = !!skipConfirmation && this.base.access.allowed('admin_all_resources');
    return this.base.db.email.create({ data: { userId: user.id, email: address, confirmedAt: confirmed ? new Date() : null } });
  }

  /** Removes an address; the user's public and commit e-mail stop naming it, as GitLab's Emails::DestroyService does. */
  async delete(userId: number | null | undefined, emailId: number): Promise<boolean> {
    const user = await this.users.selfOr(userId);
    const row = await this.get(user, emailId);
    const { db, loaders } = this.base;
    await db.$transaction(async (tx) => {
      await tx.email.delete({ where: { id: row.id } });
      const lower = row.email.toLowerCase();
      const data: { publicEmail?: null; commitEmail?: null } = {};
      if (user.publicEmail?.toLowerCase() === lower) data.publicEmail = null;
      if (user.commitEmail?.toLowerCase() === lower) data.commitEmail = null;
      if (Object.keys(data).length) await tx.user.update({ where: { id: user.id }, data });
    });
    loaders.users.byId.clear(user.id);
    return true;
  }

  /** The user's confirmed addresses, lower-cased: `primary` and the confirmed secondary ones. */
  async confirmedAddresses(user: UserRow, primary: string): Promise<Set<string>> {
    const rows = await this.base.db.email.findMany({ where: { userId: user.id, confirmedAt: { not: null } }, select: { email: true } });
    return new Set([primary.toLowerCase(), ...rows.map((r) => r.email.toLowerCase())]);
  }
}
