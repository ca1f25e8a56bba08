-- CreateTable
CREATE TABLE "customer_relations_organizations" (
    "id" SERIAL NOT NULL,
    "groupId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "defaultRate" DECIMAL(18,2),
    "description" TEXT,
    "state" SMALLINT NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_relations_organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_relations_contacts" (
    "id" SERIAL NOT NULL,
    "groupId" INTEGER NOT NULL,
    "organizationId" INTEGER,
    "firstName" TEXT NOT NULL,
    "lastName" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "description" TEXT,
    "state" SMALLINT NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_relations_contacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_customer_relations_contacts" (
    "id" SERIAL NOT NULL,
    "issueId" INTEGER NOT NULL,
    "contactId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_customer_relations_contacts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "customer_relations_organizations_groupId_idx" ON "customer_relations_organizations"("groupId");

-- CreateIndex
CREATE INDEX "customer_relations_contacts_groupId_lastName_firstName_id_idx" ON "customer_relations_contacts"("groupId", "lastName", "firstName", "id");

-- CreateIndex
CREATE INDEX "customer_relations_contacts_organizationId_idx" ON "customer_relations_contacts"("organizationId");

-- CreateIndex
CREATE INDEX "issue_customer_relations_contacts_contactId_idx" ON "issue_customer_relations_contacts"("contactId");

-- CreateIndex
CREATE UNIQUE INDEX "issue_customer_relations_contacts_issueId_contactId_key" ON "issue_customer_relations_contacts"("issueId", "contactId");

-- AddForeignKey
ALTER TABLE "customer_relations_organizations" ADD CONSTRAINT "customer_relations_organizations_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_relations_contacts" ADD CONSTRAINT "customer_relations_contacts_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_relations_contacts" ADD CONSTRAINT "customer_relations_contacts_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "customer_relations_organizations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_customer_relations_contacts" ADD CONSTRAINT "issue_customer_relations_contacts_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_customer_relations_contacts" ADD CONSTRAINT "issue_customer_relations_contacts_contactId_fkey" FOREIGN KEY ("contactId") REFERENCES "customer_relations_contacts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- GitLab validates uniqueness case-insensitively per group (contacts' emails, organizations' names), which
-- Prisma's schema cannot express: these indexes hold it when two writes race past the service's check.
CREATE UNIQUE INDEX "customer_relations_contacts_groupId_lower_email_key" ON "customer_relations_contacts" ("groupId", lower("email"));
CREATE UNIQUE INDEX "customer_relations_organizations_groupId_lower_name_key" ON "customer_relations_organizations" ("groupId", lower("name"));
