import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

/**
 * A time-series line chart (uPlot: 50 KB, canvas, no dependencies, fast on thousands of points). Sized to its
 * container and redrawn on resize; the data table under each chart is the accessible reading of the same numbers.
 */
export function TimeChart(props: {
  times: number[];
  series: Series[];
  format?: (value: number) => string;
  height?: number;
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const format = props.format ?? ((v: number) => String(v));
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 240),
      height: props.height ?? 200,
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [
        { stroke: '#56607a', grid: { stroke: '#eceef4' }, ticks: { stroke: '#eceef4' } },
        {
          stroke: '#56607a',
          grid: { stroke: '#eceef4' },
          ticks: { stroke: '#eceef4' },
          values: (_u, values) => values.map((v) => format(v)),
          size: 72,
        },
      ],
      series: [
        {},
        ...props.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          // at most ~60 buckets: points keep an isolated value (between empty buckets) visible
          points: { show: true, size: 5 },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
        })),
      ],
    };
    const chart = new uPlot(
      options,
      [props.times, ...props.series.map((s) => s.values)] as uPlot.AlignedData,
      element,
    );
    const observer = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(element.clientWidth, 240), height: props.height ?? 200 }),
    );
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [props.times, props.series, props.format, props.height]);
  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}
