// The console's only script (served from this origin; the CSP allows no other). It draws the
// charts whose data the server rendered into each figure's data-chart attribute, with uPlot.

// dollars per slice are often fractions of a cent: uPlot's default ticks would all read "0"
function tickText(unit) {
  if (unit !== "USD") return undefined;
  return (_u, ticks) => ticks.map((v) => `$${Number(v.toPrecision(2))}`);
}

function drawChart(figure) {
  const chart = JSON.parse(figure.dataset.chart);
  const plot = figure.querySelector(".plot");
  const width = Math.max(320, plot.clientWidth || 480);
  const series = [
    {
      label: "time (UTC)",
      value: (_u, v) => (v == null ? "" : new Date(v * 1000).toISOString().slice(0, 16)),
    },
  ];
  const palette = ["#0b5394", "#b45f06", "#38761d", "#741b47", "#45818e", "#7f6000"];
  chart.series.forEach((s, i) => {
    // points too: a slice with calls between empty ones (null latency) is a point, not a line
    series.push({
      label: s.label,
      stroke: palette[i % palette.length],
      width: 2,
      points: { show: true, size: 4 },
    });
  });
  // uPlot draws time axes in the browser's zone unless told otherwise: every chart states UTC
  const tzDate = (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC");
  new uPlot(
    {
      width,
      height: 220,
      series,
      tzDate,
      axes: [{}, { label: chart.unit, size: 70, values: tickText(chart.unit) }],
    },
    [chart.x, ...chart.series.map((s) => s.values)],
    plot,
  );
}

document.addEventListener("DOMContentLoaded", () => {
  for (const figure of document.querySelectorAll("figure[data-chart]")) drawChart(figure);
});
