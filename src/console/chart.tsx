// A uPlot chart as a component: made when mounted, fed new data in place, as wide as its container (followed
// as that resizes) and destroyed when unmounted. uPlot draws on a canvas and sizes its parts through
// element.style, which the console's policy allows (it forbids style attributes and <style>, not the CSSOM);
// its stylesheet is bundled into console.css by app.css.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/**
 * `options` are read when the chart is made: a caller passes the same object (or memoizes it) for the chart to
 * keep, and a new one to make it again. `data` may change freely.
 */
export function Chart({ title, options, data, height = 220 }: { title: string; options: ChartOptions; data: uPlot.AlignedData; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const dataRef = useRef(data);
  dataRef.current = data;

  useEffect(() => {
    const el = box.current!;
    const made = new uPlot({ ...options, title: undefined, width: widthOf(el), height }, dataRef.current, el);
    plot.current = made;
    const resized = new ResizeObserver(() => made.setSize({ width: widthOf(el), height }));
    resized.observe(el);
    return () => {
      resized.disconnect();
      made.destroy();
      plot.current = null;
    };
  }, [options, height]);

  useEffect(() => {
    // The first data went in with the chart; later data replaces it without making the chart again.
    if (plot.current && plot.current.data !== data) plot.current.setData(data);
  }, [data]);

  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box" />
    </figure>
  );
}

/** The container's width; at least some, so a chart made while hidden is still a chart. */
const widthOf = (el: HTMLElement) => Math.max(200, Math.floor(el.clientWidth));
