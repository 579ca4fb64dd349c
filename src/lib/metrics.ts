/**
 * What the service counts for operators (`GET /metrics`, Prometheus text). Transports and the core report through
 * this interface; the prom-client adapter implements it, and `noMetrics` stands in where nobody looks. Labels are
 * bounded sets (route patterns, tool names, outcome codes, providers), never ids or addresses.
 */
export interface Metrics {
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  toolCall(tool: string, outcome: string, seconds: number): void;
  sync(provider: string, outcome: 'ok' | 'failed', seconds: number, messages: number): void;
}

export const noMetrics: Metrics = {
  httpRequest: () => undefined,
  toolCall: () => undefined,
  sync: () => undefined,
};
