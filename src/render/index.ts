// Renderers: pure functions from a Plan or an ApplyReport to text, JSON or Markdown. They format; they never compute.

import type { ApplyReport, Plan } from '../model/plan.js';
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
}

export function renderPlan(plan: Plan, format: RenderFormat, options: RenderOptions): string {
  switch (format) {
    case 'text':
      return renderPlanText(plan, options);
    case 'json':
      return renderPlanJson(plan);
    case 'markdown':
      return renderPlanMarkdown(plan);
  }
}

export function renderApplyReport(report: ApplyReport, format: RenderFormat, options: RenderOptions): string {
  switch (format) {
    case 'text':
      return renderApplyText(report, options);
    case 'json':
      return renderApplyJson(report);
    case 'markdown':
      return renderApplyMarkdown(report);
  }
}

export { APPLY_MARKER } from './apply-markdown.js';
export { PLAN_MARKER, renderPlanMarkdown, type PlanMarkdownOptions } from './plan-markdown.js';
export { renderApplyMarkdown } from './apply-markdown.js';
export { MARKDOWN_LIMIT } from './markdown.js';
