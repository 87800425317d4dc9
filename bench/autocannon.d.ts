// The part of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  type Histogram = { average: number; mean: number; p50: number; p90: number; p99: number; max: number };
  export type Request = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  };
  export type Options = {
    url: string;
    connections?: number;
    duration?: number;
    overallRate?: number;
    pipelining?: number;
    timeout?: number;
    requests?: Request[];
    initialContext?: Record<string, unknown>;
    expectBody?: string;
  };
  export type Result = {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats?: Record<string, { count: number }>;
    duration: number;
  };
  export default function autocannon(options: Options): Promise<Result>;
}
