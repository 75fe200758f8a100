// Resource group spellings of the service (api-facts.md "Resource groups"): the closed set of
// resource types, and the fields and operations seen (open sets: others may appear).

export const RESOURCE_TYPES = ['AWS', 'AZURE', 'GCP', 'CONTAINER', 'MACHINE', 'OCI', 'KUBERNETES'] as const;

export const OPERATIONS = ['EQUALS', 'INCLUDES', 'STARTS_WITH'] as const;

export const FIELDS: Readonly<Record<(typeof RESOURCE_TYPES)[number], readonly string[]>> = {
  AWS: ['Account', 'Organization ID', 'Region', 'Resource Tag'],
  AZURE: ['Subscription ID', 'Subscription Name', 'Tenant ID', 'Tenant Name', 'Region', 'Resource Tag'],
  GCP: ['Project ID', 'Organization ID', 'Organization Name', 'Folder', 'Region', 'Resource Label'],
  CONTAINER: ['Image Repo', 'Image Registry', 'Image Tag', 'Container Label'],
  MACHINE: ['Machine Tag'],
  OCI: ['Compartment ID', 'Compartment Name', 'Region', 'Resource Tag'],
  KUBERNETES: ['AWS Account', 'AWS Region', 'Cluster Name', 'Namespace'],
};
