// What a data export rule takes (api-facts.md "Data export rules").

/** The only channels a data export takes. */
export const EXPORT_CHANNEL_TYPES = ['AwsS3'] as const;
