// Renderers: pure functions from a Plan or an ApplyReport to text, JSON or Markdown. They format; they never compute.

import type { ApplyReport, Plan } from '../model/plan.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';
import { renderApplyJson } from './apply-json.js';
import { renderApplyMarkdown } from './apply-markdown.js';
import { renderApplyText } from './apply-text.js';
import { renderPlanJson } from './plan-json.js';
import { renderPlanMarkdown } from './plan-markdown.js';
import { renderPlanText } from './plan-text.js';

export type RenderFormat = 'text' | 'json' | 'markdown';
export interface RenderOptions {
  /** ANSI colour (text only). */
  color: boolean;
  /** Text only: leave out the bookkeeping (API calls made, the rate-limit budget) unless a wait is coming. */
  quiet?: boolean;
  /** Text only: one line per change or result, no diffs (failures keep their reason): the demo's screen. */
  brief?: boolean;
  /** The values the run read from the environment: masked in the data before it is rendered, and in the text. */
  secrets?: ReadValues;
}

export function renderPlan(plan: Plan, format: RenderFormat, options: RenderOptions): string {
  return renderMasked(options.secrets, plan, (p) => {
    switch (format) {
      case 'text':
        return renderPlanText(p, options);
      case 'json':
        return renderPlanJson(p);
      case 'markdown':
        return renderPlanMarkdown(p);
    }
  });
}

export function renderApplyReport(report: ApplyReport, format: RenderFormat, options: RenderOptions): string {
  return renderMasked(options.secrets, report, (r) => {
    switch (format) {
      case 'text':
        return renderApplyText(r, options);
      case 'json':
        return renderApplyJson(r);
      case 'markdown':
        return renderApplyMarkdown(r);
    }
  });
}

export { APPLY_MARKER } from './apply-markdown.js';
export { PLAN_MARKER, renderPlanMarkdown, type PlanMarkdownOptions } from './plan-markdown.js';
export { renderApplyMarkdown } from './apply-markdown.js';
export { MARKDOWN_LIMIT } from './markdown.js';
