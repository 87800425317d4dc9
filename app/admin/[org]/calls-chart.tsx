'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DayRow } from '@/lib/admin/overview';

export type ChartSeries = { key: string; label: string; color: string };

/** Calls per day as stacked bars, one colour per series. The page puts the same numbers in a table. */
export function CallsChart({ label, series, rows }: { label: string; series: ChartSeries[]; rows: DayRow[] }) {
  return (
    <div className="h-72 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} aria-label={label}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} tick={{ fontSize: 12 }} interval="preserveStartEnd" />
          <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
          <Tooltip />
          {/* In series order (not alphabetical), in dark text: the coloured swatch carries the colour. */}
          <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} formatter={(value: string) => <span className="text-slate-700">{value}</span>} />
          {series.map((item) => (
            <Bar key={item.key} dataKey={item.key} name={item.label} stackId="calls" fill={item.color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
