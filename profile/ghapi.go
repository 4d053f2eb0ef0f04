package profile

// Patterns for gh api rows (row conditions split on blanks: no spaces).

// ghSettingsPath matches the REST endpoints that hold a repository's,
// an organisation's or the account's settings: the repository itself
// (visibility, name, default branch), who has access (deploy keys,
// collaborators, invitations, members, SSH and GPG keys), secrets and
// variables, webhooks, branch protection and rulesets, Actions
// permissions and runners, transfer and Pages.
const ghSettingsPath = `^/?(repos/[^/]+/[^/]+/?$|repos/[^/]+/[^/]+/(keys|hooks|collaborators|invitations|actions/(secrets|variables|permissions|runners)|environments/[^/]+/(secrets|variables)|branches/[^/]+/protection|rulesets|transfer|pages|dependabot/secrets|codespaces/secrets)|user/(keys|gpg_keys|ssh_signing_keys|emails|social_accounts)|orgs/[^/]+/?$|orgs/[^/]+/(members|memberships|outside_collaborators|invitations|hooks|actions/(secrets|variables|permissions|runners)|dependabot/secrets|codespaces/secrets|rulesets|teams/[^/]+/repos))`

// ghGraphQLDestroy matches a GraphQL mutation that deletes, archives or
// transfers (deleteRepository, deleteRef, archiveRepository, …).
const ghGraphQLDestroy = `(?s)mutation.*\b(delete\w+|archiveRepository|transferRepository|transferIssue)\b`

// ghGraphQLSettings matches a GraphQL mutation that changes settings or
// access (updateRepository, branch protection, keys, collaborators,
// secrets, IP allow lists, interaction limits).
const ghGraphQLSettings = `(?s)mutation.*\b(updateRepository|update\w*Protection\w*|update\w*Visibility\w*|update\w*Permission\w*|add\w*Key|add\w*Collaborator|add\w*Member|create\w*Key|create\w*Secret|createBranchProtectionRule|updateTeamRepository|createIpAllowListEntry|updateIpAllowList\w*|set\w*InteractionLimit)\b`
