-- Environment.kubernetesNamespace (GitLab's environments.kubernetes_namespace).
ALTER TABLE "environments" ADD COLUMN "kubernetesNamespace" TEXT;
