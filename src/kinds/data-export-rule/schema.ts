// The JSON Schema of DataExportRule documents.

import { commonRef, envelope, obj, type SchemaObject, typedChannels } from '../schema-parts.js';
import { EXPORT_CHANNEL_TYPES } from './channels.js';

export const SCHEMA_FILE = 'data-export-rule.schema.json';

function documentSchema(): SchemaObject {
  const spec = obj(
    "Which S3 buckets (AwsS3 alert channels) receive the account's data export.",
    {
      channels: typedChannels(EXPORT_CHANNEL_TYPES, 'the data is exported to', 'security-lake'),
      description: { type: 'string', default: '', description: 'Free text shown with the rule.', examples: ['Everything to the security data lake'] },
      enabled: commonRef('enabled'),
      profileVersions: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
        description: 'Versions of the export profile (V1). Left out, the live rule keeps its own; [] clears them.',
        examples: [['V1']],
      },
    },
    ['channels'],
  );
  return envelope('DataExportRule', SCHEMA_FILE, 'A data export rule: exports the account\'s data to S3 buckets through AwsS3 alert channels.', spec, {
    name: 'to-security-lake',
    spec: { channels: ['security-lake'] },
  });
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
