// Every diagnostic code, a closed set like the change reasons (src/model/reasons.ts): tools and tests
// key on the code, the message is prose. Diagnostic.code is typed by it, so a new code must be added
// here with its meaning; docs/diagnostics.md lists the same, and test/model/diagnostic-codes.test.ts
// holds the two (and the source) together.

export type DiagnosticCode =
  // files and YAML
  | 'file-unreadable'
  | 'file-binary'
  | 'file-encoding'
  | 'file-too-large'
  | 'symlink-outside'
  | 'nested-root-skipped'
  | 'empty-document'
  | 'yaml-syntax'
  | 'yaml-tab-indent'
  | 'yaml-duplicate-key'
  | 'yaml-warning'
  | 'yaml-unknown-tag'
  | 'yaml-alias-bomb'
  | 'yaml-alias-unknown'
  | 'yaml-alias-cycle'
  | 'yaml-merge-key'
  | 'yaml-complex-key'
  | 'yaml-unsupported-value'
  | 'yaml-too-deep'
  | 'forbidden-key'
  // the root file
  | 'root-missing'
  | 'root-duplicate'
  | 'root-invalid'
  | 'duplicate-account'
  | 'duplicate-org-account'
  | 'default-account-missing'
  | 'protect-unknown-kind'
  | 'routing-requirement'
  | 'routing-test'
  | 'routing-health-unchecked'
  // documents and their values
  | 'document-not-mapping'
  | 'missing-field'
  | 'unknown-kind'
  | 'unknown-field'
  | 'unknown-member'
  | 'reference-kept-as-id'
  | 'invalid-type'
  | 'schema-violation'
  | 'duplicate-item'
  | 'invalid-value'
  | 'unknown-value'
  | 'unknown-type'
  | 'unknown-report'
  | 'format'
  | 'account-missing'
  | 'account-not-declared'
  | 'duplicate-resource'
  | 'rename-unsupported'
  | 'internal-error'
  | 'env-missing'
  | 'env-skipped'
  | 'env-malformed'
  | 'env-not-supported'
  | 'env-undeclared'
  | 'env-forbidden'
  | 'env-not-here'
  | 'variable-forbidden'
  | 'secret-literal'
  | 'reference-not-declared'
  | 'reference-not-allowed'
  // checks of one kind
  | 'no-channels'
  | 'duplicate-severity'
  | 'invalid-severity'
  | 'invalid-query'
  | 'duplicate-template'
  | 'template-placeholder'
  | 'unknown-placeholder'
  | 'profile-reserved-id'
  | 'profile-extends-custom'
  | 'profile-extends-root'
  | 'unknown-base-profile'
  | 'base-profile-without-templates'
  | 'service-check-failed'
  | 'scope-not-of-type'
  | 'exception-expired'
  | 'query-reserved-id'
  | 'invalid-name'
  | 'conflicting-members'
  | 'query-text-shape'
  // plan
  | 'unknown-account'
  | 'account-not-fetched'
  | 'managed-by-service'
  | 'unknown-reference'
  | 'ambiguous-live-name'
  | 'reference-by-id'
  | 'reference-to-deleted'
  | 'dangling-reference'
  | 'ambiguous-rename'
  | 'looks-renamed'
  | 'ignore-secret'
  | 'rotate-no-match'
  | 'selector-matches-nothing'
  | 'target-no-match'
  | 'target-no-change'
  | 'dependency-cycle'
  | 'budget-estimate'
  | 'attribution-budget'
  | 'attribution-failed'
  // saved plans
  | 'plan-file-unreadable'
  | 'plan-file-unwritable'
  | 'plan-file-corrupt'
  | 'plan-file-too-large'
  | 'plan-file-too-deep'
  | 'plan-file-foreign'
  | 'plan-file-version'
  | 'plan-file-modified'
  | 'plan-file-mac-missing'
  | 'plan-file-mac-wrong'
  // export
  | 'no-accounts'
  | 'export-resource-left-out'
  | 'export-member-left-out'
  | 'export-value-kept'
  | 'export-setting-conflict'
  | 'empty-member-left-out'
  | 'invalid-live-name'
  | 'duplicate-live-name'
  | 'reference-not-exported'
  | 'export-service-value'
  | 'secret-in-export'
  | 'env-like-live-value';

/** One line per code: what it means. Records, so that a code cannot go undocumented. */
export const DIAGNOSTIC_CODES: Readonly<Record<DiagnosticCode, string>> = {
  'file-unreadable': 'a file of the configuration cannot be read (permissions, vanished)',
  'file-binary': 'a file holds NUL bytes: not a text file',
  'file-encoding': 'a file is not valid UTF-8',
  'file-too-large': 'a file is larger than the loader reads',
  'symlink-outside': 'a symbolic link points outside the configuration directory',
  'nested-root-skipped': 'a folder has its own postureops.yaml: a separate configuration, not loaded with this one',
  'empty-document': 'a file or a document in it is empty: skipped',
  'yaml-syntax': 'the YAML does not parse',
  'yaml-tab-indent': 'a tab indents a line; YAML indents with spaces only',
  'yaml-duplicate-key': 'a mapping gives the same key twice',
  'yaml-warning': 'yaml warns about the text (it is read all the same)',
  'yaml-unknown-tag': 'a `!tag` yaml does not know: the value is read as its plain text',
  'yaml-alias-bomb': 'aliases expand to more nodes than any real file needs: refused',
  'yaml-alias-unknown': 'an alias names no anchor before it',
  'yaml-alias-cycle': 'an alias refers to a node that contains it',
  'yaml-merge-key': 'a merge key (`<<: *anchor`): not supported',
  'yaml-complex-key': 'a mapping key that is not a plain string',
  'yaml-unsupported-value': 'a value JSON cannot hold (a date, a binary, NaN, an infinite number)',
  'yaml-too-deep': 'collections nested deeper than the loader reads (100 levels)',
  'forbidden-key': 'a key that could reach Object.prototype (`__proto__`, `constructor`, `prototype`)',
  'root-missing': 'no postureops.yaml in the directory (or it is not a directory)',
  'root-duplicate': 'both postureops.yaml and postureops.yml exist',
  'root-invalid': 'postureops.yaml is empty or not a mapping',
  'duplicate-account': 'postureops.yaml declares an account twice',
  'duplicate-org-account': 'more than one account addresses organization-level data',
  'default-account-missing': 'several accounts and no `defaults.account`',
  'protect-unknown-kind': 'a `protect` selector names no kind: it would protect nothing',
  'routing-requirement': 'a routing requirement of postureops.yaml is not met by the configuration',
  'routing-test': 'a routing test of postureops.yaml fails: an event reaches other channels than expected',
  'routing-health-unchecked': 'a `healthy: true` routing requirement: validate checks what its cells reach, not whether the channels deliver (plan reads that from the service)',
  'document-not-mapping': 'a document is not a mapping with `kind`, `name` and `spec`',
  'missing-field': 'a document lacks a member it must have',
  'unknown-kind': 'a document names a kind postureops does not know (or one without documents of its own)',
  'unknown-field': 'a member the schema does not know (a misspelling, usually: the hint says which)',
  'reference-kept-as-id': 'a reference to an id the live resource holds though the account lists no such resource (a rule naming a deleted group): kept as the id, neither changed nor refused',
  'unknown-member': 'a member of an object the service defines (an integration\'s `data`) that this version does not list, far from every listed one: carried as written, the service decides',
  'invalid-type': 'a value of the wrong type (a string where a list is expected, ...)',
  'schema-violation': 'any other schema rule broken (a pattern, a range, a required member)',
  'duplicate-item': 'a list that is a set names the same item twice',
  'invalid-value': 'a value no rule of its kind allows (previousNames naming the document itself, ...)',
  'unknown-value': 'a value outside a closed set of the service: a misspelling is an error, a new value a warning',
  'unknown-type': 'an integration or channel type postureops does not know',
  'unknown-report': 'a report name the service does not have',
  'format': 'a value does not look like what it should (a URL, an ARN, an account id): a warning where the service may know better',
  'account-missing': 'a document names no account and postureops.yaml sets no `defaults.account`',
  'account-not-declared': 'a document names an account postureops.yaml does not declare',
  'duplicate-resource': 'two documents declare the same kind and name in one account',
  'rename-unsupported': '`previousNames` on a kind the service cannot rename in place',
  'internal-error': 'a document could not be read for a reason that is a bug of postureops (the message says what)',
  'env-missing': 'an environment variable a file names is not set',
  'env-skipped': 'an environment variable is not set and validate was asked not to need it: its value is not checked',
  'env-malformed': 'a malformed `${env:...}` reference',
  'env-not-supported': 'a member that may not come from `${env:...}` (an identity, a name)',
  'env-undeclared': 'a `${env:NAME}` of a variable the root file\'s `variables:` does not declare',
  'env-forbidden': 'a `${env:NAME}` of a variable no configuration may read (postureops\' own settings, the CI\'s tokens and inputs)',
  'env-not-here': 'a `${env:...}` outside the values under `spec` (a name, an account, a reference, the root file)',
  'variable-forbidden': 'a `variables:` entry that names or could cover a variable no configuration may read',
  'secret-literal': 'a secret member holds a literal value, or the mask the service shows for a hidden one',
  'reference-not-declared': 'a reference names a resource no document of that account declares',
  'reference-not-allowed': 'a reference names a resource of the wrong sort (a report rule routed to a non-email channel)',
  'no-channels': 'an alert rule names no channel: its alerts reach nobody',
  'duplicate-severity': 'an alert rule names the same severity twice',
  'invalid-severity': 'a severity that is neither a known name nor a known code',
  'invalid-query': 'a resource group query that the service would refuse',
  'duplicate-template': 'an alert profile declares the same template twice',
  'template-placeholder': 'an alert template placeholder is malformed',
  'unknown-placeholder': 'an alert template placeholder that is not a description key of its profile',
  'profile-reserved-id': "an alert profile id uses the predefined profiles' prefix",
  'profile-extends-custom': 'an alert profile extends a profile that is not predefined',
  'profile-extends-root': 'an alert profile extends the root of the predefined profiles, which has no templates',
  'unknown-base-profile': 'an alert profile extends a predefined profile the account does not have',
  'base-profile-without-templates': 'an alert profile extends a profile that has no templates',
  'service-check-failed': 'the service refused a value a kind asked it to check at plan time (a query its validation endpoint rejects)',
  'scope-not-of-type': 'a vulnerability exception scopes by a member of the other type (a hostname on a Container exception)',
  'exception-expired': 'a vulnerability exception is past its expiry: the service no longer applies it',
  'query-reserved-id': "a Query's name (its queryId) uses the predefined queries' prefix",
  'invalid-name': "a name the service would not take as the resource's id (a Policy's name is its id's suffix, a Query's its queryId)",
  'conflicting-members': "members a document may not give together (a policy's alertTemplate and alertProfile, a frequency on a Compliance policy)",
  'query-text-shape': 'a query text without the shape every text the service parses has (a brace not closed, a section missing or out of order): a warning, the service validates at plan',
  'unknown-account': 'an account asked for is not one of the root file',
  'account-not-fetched': 'the live state holds no data of a planned account',
  'managed-by-service': 'a document declares a resource the service predefines: it cannot be managed',
  'unknown-reference': 'a reference names a resource that is neither declared nor live',
  'ambiguous-live-name': 'a reference names a live resource whose name several live resources share',
  'reference-by-id': 'a reference gives a live id where a name is expected',
  'reference-to-deleted': 'a reference names a resource this plan deletes',
  'dangling-reference': 'a live resource refers to an id that does not exist',
  'ambiguous-rename': 'several live resources have one of the `previousNames` of a document',
  'looks-renamed': 'a create and a delete with the same spec: perhaps a rename that `previousNames` should say',
  'ignore-secret': '`lifecycle.ignoreChanges` names a secret member, whose live value a plan may not carry',
  'rotate-no-match': '`--rotate` selects no declared resource with write-only secrets',
  'selector-matches-nothing': 'a selector of live records (a PredefinedPolicies tag) selects none: the entry changes nothing',
  'target-no-match': '`--target` names no declared or live resource of the accounts planned',
  'target-no-change': '`--target` selects no change: what it names is up to date',
  'dependency-cycle': 'the changes of a plan depend on each other in a cycle',
  'budget-estimate': 'the requests of a change cannot be estimated for the pre-flight',
  'attribution-budget': 'the audit log was not read for drift attribution: the rate-limit budget is short',
  'attribution-failed': 'the audit log of an account could not be read',
  'plan-file-unreadable': 'a saved plan file does not exist or cannot be read',
  'plan-file-unwritable': 'a plan file cannot be written',
  'plan-file-corrupt': 'a saved plan file is not valid JSON or not a plan',
  'plan-file-too-large': 'a saved plan file larger than postureops reads (64 MB)',
  'plan-file-too-deep': 'a saved plan file nesting values deeper than a plan does (100 levels)',
  'plan-file-foreign': 'a file is not a postureops plan file',
  'plan-file-version': 'a saved plan has a format version this postureops does not read',
  'plan-file-modified': 'the checksum of a saved plan does not match: it was edited',
  'plan-file-mac-missing': 'a key is set and the saved plan carries no MAC',
  'plan-file-mac-wrong': 'the MAC of a saved plan does not match the key',
  'no-accounts': 'export was given no account',
  'export-resource-left-out': 'export leaves out a live resource it cannot write as a file',
  'export-member-left-out': 'export leaves out a member it cannot write as read',
  'export-value-kept': 'export writes a member as the service holds it though validate will warn about it',
  'export-setting-conflict': 'accounts of one export disagree on a setting the root file holds once',
  'empty-member-left-out': 'export leaves out a member the service holds empty and this version does not know',
  'invalid-live-name': 'a live name no file can hold (export)',
  'duplicate-live-name': 'live resources share a name, which files cannot tell apart (export)',
  'export-service-value': "a live value close to a known one (a type a short edit from one this version knows) is the service's: export lists it in `serviceValues` of postureops.yaml",
  'reference-not-exported': 'an exported resource names one this export does not write',
  'secret-in-export': 'a secret value would appear in an exported document after its secrets were replaced: the document is left out',
  'env-like-live-value': 'a live value holds `${env:`, which loading would read as an environment reference',
};

export const isDiagnosticCode = (v: unknown): v is DiagnosticCode => typeof v === 'string' && Object.hasOwn(DIAGNOSTIC_CODES, v);
