//! SVG charts (`--plot`): ops/s per backend per algorithm, one panel per operation (sign,
//! verify under distinct keys, verify under one key; grouped bars, OpenSSL and the peer
//! libraries beside the backends), and below them the equal-security view (one panel per
//! NIST SP 800-57 level: each library's sign/s and verify/s for that level's RSA size and
//! curve side by side); or with `--sweep` ops/s against batch size per backend and algorithm —
//! where a GPU overtakes the CPU is the point to read off. Both axes that span decades are
//! logarithmic.

use std::path::Path;

use plotters::prelude::*;

use crate::alg::{Alg, EQUAL_SECURITY};
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

/// The libraries a chart shows: available backends, then peers, then `openssl` when its
/// figures were measured.
fn libraries(r: &Report) -> Vec<String> {
    let mut series: Vec<String> = r
        .backends
        .iter()
        .chain(&r.peers)
        .filter(|b| b.available)
        .map(|b| b.name.clone())
        .collect();
    if r.results.iter().any(|x| x.openssl_ops_per_sec.is_some()) {
        series.push("openssl".into());
    }
    series
}

/// A library's figure (`openssl` for OpenSSL's same-run one).
fn value(r: &Report, lib: &str, alg: Alg, op: Op) -> Option<f64> {
    if lib == "openssl" {
        r.openssl_rate(alg, op)
    } else {
        r.rate(lib, alg, op)
    }
}

/// Grouped log-scale bars in one panel: a group per `groups` label, a bar per `series` entry
/// (`value(group, series)`), the legend in the upper left.
fn bar_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    y_desc: &str,
    groups: &[String],
    series: &[(String, RGBAColor)],
    value: &dyn Fn(usize, usize) -> Option<f64>,
) -> PlotResult {
    let (lo, hi) =
        decades((0..groups.len()).flat_map(|g| (0..series.len()).filter_map(move |j| value(g, j))));
    // Headroom above the tallest bar for the legend: a decade per ~6 entries, at least 4×.
    let hi = hi * 10f64.powf(0.3 + 0.15 * series.len() as f64);
    let n = groups.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..n - 0.5, (lo..hi).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups.len() + 1)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < groups.len() {
                groups[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| format!("{y:.0}"))
        .y_desc(y_desc)
        .draw()
        .map_err(err)?;
    let width = 0.8 / series.len().max(1) as f64;
    for (j, (label, color)) in series.iter().enumerate() {
        let color = *color;
        let bars: Vec<Rectangle<(f64, f64)>> = (0..groups.len())
            .filter_map(|g| {
                let v = value(g, j)?;
                let x0 = g as f64 - 0.4 + j as f64 * width;
                Some(Rectangle::new(
                    [(x0, lo), (x0 + width * 0.9, v)],
                    color.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(bars)
            .map_err(err)?
            .label(label.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    Ok(())
}

/// The equal-security levels (NIST SP 800-57) with at least one measured figure among
/// `algs`: the level, its RSA size and its curve.
fn measured_levels(r: &Report, algs: &[Alg]) -> Vec<(usize, Alg, Alg)> {
    let libs = libraries(r);
    EQUAL_SECURITY
        .into_iter()
        .filter(|(_, rsa, ec)| {
            [*rsa, *ec]
                .into_iter()
                .filter(|a| algs.contains(a))
                .any(|a| {
                    libs.iter()
                        .any(|l| Op::ALL[..2].iter().any(|&op| value(r, l, a, op).is_some()))
                })
        })
        .collect()
}

/// The equal-security bars of one level: a group per library, four bars each — the RSA size
/// and the curve of that level, signing then verifying (distinct keys) — so the choice the
/// level poses reads off side by side.
fn level_series(rsa: Alg, ec: Alg) -> Vec<(Alg, Op, String, RGBAColor)> {
    // RSA in blues, ECDSA in oranges; a darker shade for signing.
    let shade = |rgb: (u8, u8, u8)| RGBColor(rgb.0, rgb.1, rgb.2).to_rgba();
    [
        (rsa, Op::Sign, shade((31, 78, 140))),
        (ec, Op::Sign, shade((200, 90, 20))),
        (rsa, Op::Verify, shade((120, 170, 220))),
        (ec, Op::Verify, shade((245, 175, 100))),
    ]
    .into_iter()
    .map(|(a, op, c)| (a, op, format!("{} {}", a.pretty(), op.name()), c))
    .collect()
}

/// Grouped bars: one panel per operation, one group per algorithm, one bar per backend, one
/// per peer library and one for OpenSSL; below them the equal-security view, one panel per
/// level measured (see [`level_series`]).
pub fn bars(r: &Report, algs: &[Alg], path: &Path) -> PlotResult {
    let libs = libraries(r);
    let levels = measured_levels(r, algs);
    let height = if levels.is_empty() { 560 } else { 1120 };
    let root = SVGBackend::new(path, (2100, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (top, bottom) = root.split_vertically(560);
    let series: Vec<(String, RGBAColor)> = libs
        .iter()
        .enumerate()
        .map(|(j, s)| (s.clone(), Palette99::pick(j).to_rgba()))
        .collect();
    let names: Vec<String> = algs.iter().map(|a| a.name()).collect();
    for (area, op) in top.split_evenly((1, Op::ALL.len())).iter().zip(Op::ALL) {
        let caption = format!(
            "{} per second, batch {} ({} threads)",
            op.title(),
            r.config.batch,
            r.config.threads
        );
        let y = format!("{}/s (log)", op.name());
        bar_panel(area, &caption, &y, &names, &series, &|g, j| {
            value(r, &libs[j], algs[g], op)
        })?;
    }
    if !levels.is_empty() {
        for (area, (level, rsa, ec)) in bottom.split_evenly((1, levels.len())).iter().zip(&levels) {
            let caption = format!("{level}-bit security: {} or {}", rsa.pretty(), ec.pretty());
            let bars = level_series(*rsa, *ec);
            let legend: Vec<(String, RGBAColor)> =
                bars.iter().map(|b| (b.2.clone(), b.3)).collect();
            bar_panel(area, &caption, "ops/s (log)", &libs, &legend, &|g, j| {
                value(r, &libs[g], bars[j].0, bars[j].1)
            })?;
        }
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

    use crate::report::tests::{rec, report};
    use crate::report::BackendInfo;
    use batch_core::Curve;

    fn two_levels() -> Report {
        let p256 = Alg::Ecdsa(Curve::P256);
        let mut r = report(vec![
            rec("scalar", Alg::Rsa(2048), Op::Sign, 1500.0, Some(1400.0)),
            rec("scalar", Alg::Rsa(2048), Op::Verify, 50000.0, Some(48000.0)),
            rec("scalar", Alg::Rsa(3072), Op::Sign, 500.0, Some(450.0)),
            rec("scalar", Alg::Rsa(3072), Op::Verify, 23456.0, Some(22000.0)),
            rec("scalar", p256, Op::Sign, 41234.0, Some(40000.0)),
            rec("scalar", p256, Op::Verify, 14321.0, Some(14000.0)),
        ]);
        r.backends = vec![
            BackendInfo::backend("scalar", true, "cpu".into()),
            BackendInfo::backend("gone", false, "unavailable".into()),
        ];
        r
    }

    #[test]
    fn equal_security_view_has_the_levels_measured() {
        let r = two_levels();
        let algs = [Alg::Rsa(2048), Alg::Rsa(3072), Alg::Ecdsa(Curve::P256)];
        let levels: Vec<usize> = measured_levels(&r, &algs).iter().map(|l| l.0).collect();
        assert_eq!(levels, [112, 128]);
        // An algorithm left out of `--algs` does not make its level appear.
        assert_eq!(measured_levels(&r, &algs[..1]).len(), 1);
        assert_eq!(libraries(&r), ["scalar", "openssl"]);
        let s = level_series(Alg::Rsa(3072), Alg::Ecdsa(Curve::P256));
        let labels: Vec<&str> = s.iter().map(|b| b.2.as_str()).collect();
        assert_eq!(
            labels,
            [
                "RSA-3072 sign",
                "ECDSA P-256 sign",
                "RSA-3072 verify",
                "ECDSA P-256 verify"
            ]
        );
        assert_eq!(
            value(&r, "openssl", Alg::Rsa(3072), Op::Verify),
            Some(22000.0)
        );
        assert_eq!(value(&r, "scalar", Alg::Ecdsa(Curve::P384), Op::Sign), None);
    }

    #[test]
    fn svg_draws_both_views() {
        let r = two_levels();
        let algs = [Alg::Rsa(2048), Alg::Rsa(3072), Alg::Ecdsa(Curve::P256)];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("speed.svg");
        bars(&r, &algs, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for caption in [
            "sign per second",
            "112-bit security: RSA-2048 or ECDSA P-224",
            "128-bit security: RSA-3072 or ECDSA P-256",
            "ECDSA P-256 verify",
        ] {
            assert!(svg.contains(caption), "{caption} missing");
        }
        assert!(svg.contains("height=\"1120\""), "two rows of panels");
        // Without a level's algorithms there is one row only.
        bars(&r, &algs[..0], &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("height=\"560\""));
        assert!(!svg.contains("security:"));
    }
}
