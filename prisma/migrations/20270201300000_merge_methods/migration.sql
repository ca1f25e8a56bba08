-- Project merge settings (issue 31): GitLab's merge_method, squash_option, remove_source_branch_after_merge, and the
-- merge and squash commit templates and suggestion commit message.
ALTER TABLE "projects" ADD COLUMN "mergeMethod" TEXT NOT NULL DEFAULT 'merge';
ALTER TABLE "projects" ADD COLUMN "squashOption" TEXT NOT NULL DEFAULT 'default_off';
ALTER TABLE "projects" ADD COLUMN "removeSourceBranchAfterMerge" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "projects" ADD COLUMN "mergeCommitTemplate" TEXT;
ALTER TABLE "projects" ADD COLUMN "squashCommitTemplate" TEXT;
ALTER TABLE "projects" ADD COLUMN "suggestionCommitMessage" TEXT;
