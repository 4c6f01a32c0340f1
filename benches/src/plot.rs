//! SVG charts (`--plot`): ops/s per backend per algorithm, one panel per operation (sign,
//! verify under distinct keys, verify under one key; grouped bars, OpenSSL beside the
//! backends), or with `--sweep` ops/s against batch size per backend and algorithm — where a
//! GPU overtakes the CPU is the point to read off. Both axes that span decades are logarithmic.

use std::path::Path;

use plotters::prelude::*;

use crate::alg::Alg;
use crate::measure::Op;
use crate::report::Report;

type PlotResult = Result<(), String>;

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

/// Log-axis bounds: whole decades around the data.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0)
        .fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi == 0.0 {
        return (1.0, 10.0);
    }
    (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
    )
}

/// Grouped bars: one panel per operation, one group per algorithm, one bar per backend, one
/// per peer library and one for OpenSSL.
pub fn bars(r: &Report, algs: &[Alg], path: &Path) -> PlotResult {
    let mut series: Vec<String> = r
        .backends
        .iter()
        .chain(&r.peers)
        .filter(|b| b.available)
        .map(|b| b.name.clone())
        .collect();
    let has_openssl = r.results.iter().any(|x| x.openssl_ops_per_sec.is_some());
    if has_openssl {
        series.push("openssl".into());
    }
    let value = |s: &str, alg: Alg, op: Op| -> Option<f64> {
        let mut it = r.results.iter().filter(|x| x.alg == alg && x.op == op);
        if s == "openssl" {
            it.find_map(|x| x.openssl_ops_per_sec)
        } else {
            it.find(|x| x.backend == s).and_then(|x| x.ops_per_sec)
        }
    };
    let root = SVGBackend::new(path, (2100, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let panels = root.split_evenly((1, Op::ALL.len()));
    let n = algs.len() as f64;
    for (area, op) in panels.iter().zip(Op::ALL) {
        let all = algs
            .iter()
            .flat_map(|&a| series.iter().filter_map(move |s| value(s, a, op)));
        let (lo, hi) = decades(all);
        // Headroom above the tallest bar for the legend.
        let hi = hi * 4.0;
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{} per second, batch {} ({} threads)",
                    op.title(),
                    r.config.batch,
                    r.config.threads
                ),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..n - 0.5, (lo..hi).log_scale())
            .map_err(err)?;
        let names: Vec<String> = algs.iter().map(|a| a.name()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(algs.len() + 1)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                    names[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| format!("{y:.0}"))
            .y_desc(format!("{}/s (log)", op.name()))
            .draw()
            .map_err(err)?;
        let width = 0.8 / series.len().max(1) as f64;
        for (j, s) in series.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            let bars: Vec<Rectangle<(f64, f64)>> = algs
                .iter()
                .enumerate()
                .filter_map(|(i, &a)| {
                    let v = value(s, a, op)?;
                    let x0 = i as f64 - 0.4 + j as f64 * width;
                    Some(Rectangle::new(
                        [(x0, lo), (x0 + width * 0.9, v)],
                        color.filled(),
                    ))
                })
                .collect();
            chart
                .draw_series(bars)
                .map_err(err)?
                .label(s.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
    }
    root.present().map_err(err)
}

/// Lines of ops/s against batch size (log–log), one panel per operation, one line per
/// backend and algorithm.
pub fn sweep(r: &Report, path: &Path) -> PlotResult {
    let mut keys: Vec<(String, Alg)> = r.sweep.iter().map(|p| (p.backend.clone(), p.alg)).collect();
    keys.sort();
    keys.dedup();
    let root = SVGBackend::new(path, (2100, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let panels = root.split_evenly((1, Op::ALL.len()));
    let (bmin, bmax) = decades(r.sweep.iter().map(|p| p.batch as f64));
    for (area, op) in panels.iter().zip(Op::ALL) {
        let (lo, hi) = decades(
            r.sweep
                .iter()
                .filter(|p| p.op == op)
                .filter_map(|p| p.ops_per_sec),
        );
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{} throughput by batch size ({} threads)",
                    op.title(),
                    r.config.threads
                ),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d((bmin..bmax).log_scale(), (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .x_desc("batch size (log)")
            .y_desc(format!("{}/s (log)", op.name()))
            .draw()
            .map_err(err)?;
        for (j, (b, alg)) in keys.iter().enumerate() {
            let pts: Vec<(f64, f64)> = r
                .sweep
                .iter()
                .filter(|p| &p.backend == b && p.alg == *alg && p.op == op)
                .filter_map(|p| Some((p.batch as f64, p.ops_per_sec?)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let color = Palette99::pick(j).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(err)?
                .label(format!("{b} {}", alg.name()))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
                });
            chart
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
    }
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_cover_the_data() {
        assert_eq!(decades([3.0, 4500.0].into_iter()), (1.0, 10000.0));
        assert_eq!(decades([100.0].into_iter()), (100.0, 1000.0));
        assert_eq!(decades(std::iter::empty()), (1.0, 10.0));
    }
}
