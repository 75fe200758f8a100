// The JSON Schema of AlertProfile documents (the profile and its alert templates).

import { NOT_BLANK, envelope, obj, str, type SchemaObject } from '../schema-parts.js';

export const SCHEMA_FILE = 'alert-profile.schema.json';

function documentSchema(): SchemaObject {
  const placeholderNote = 'Plain text with {{KEY}} placeholders from the descriptionKeys of the extended profile, e.g. {{_OCCURRENCE}}, {{RESOURCE_ID}}.';
  const template = obj(
    'An alert template: the text of alerts raised by policies that name <profile>.<template>.',
    {
      name: { ...str('Template name, unique in the profile; equal to an inherited one, it overrides that template.'), pattern: NOT_BLANK, examples: ['File_Violation'] },
      eventName: str('Name of the resulting alert, shown in the event summary.', { example: 'Changed file' }),
      subject: { type: 'string', description: `High-level observation. ${placeholderNote}`, examples: ['{{PATH}} changed on {{MID}}'] },
      description: { type: 'string', description: `Summary of the alert. ${placeholderNote}`, examples: ['{{_OCCURRENCE}}'] },
    },
    ['name', 'eventName', 'subject', 'description'],
  );
  const spec = obj(
    'A custom alert profile and its templates.',
    {
      extends: str('Id of the predefined profile (SVC_...) this one inherits fields and descriptionKeys from; not SVC_BASE_PROFILE.', {
        example: 'SVC_AWS_CIS',
      }),
      alerts: { type: 'array', items: template, default: [], description: 'Templates of this profile.' },
    },
    ['extends'],
  );
  return envelope(
    'AlertProfile',
    SCHEMA_FILE,
    'A custom alert profile (name = alertProfileId, not starting with SVC_) extending a predefined profile, with its alert templates.',
    spec,
    {
      name: 'CUSTOM_FILES_PROFILE',
      spec: {
        extends: 'SVC_HE_FILES_DEFAULT_PROFILE',
        alerts: [{ name: 'File_Changed', eventName: 'Watched file changed', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' }],
      },
    },
  );
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
