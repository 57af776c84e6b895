//! Plain SVG bar charts for `dao bench` (no plotting dependency): one group
//! of horizontal bars per row (benchmark, class, threads), one bar per
//! series, a legend, and the value printed at the end of each bar, so the
//! figure reads without the JSON next to it.

/// One group: a label and one optional value per series (None: no bar).
pub struct Group {
    pub label: String,
    pub values: Vec<Option<f64>>,
}

const COLORS: [&str; 6] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A grouped horizontal bar chart. `fmt` prints a value at the bar's end.
pub fn bars(title: &str, unit: &str, series: &[&str], groups: &[Group], fmt: &dyn Fn(f64) -> String) -> String {
    let per_row = 3usize;
    let legend_rows = series.len().div_ceil(per_row) as f64;
    let (left, right, bar_h, gap) = (150.0, 150.0, 14.0, 12.0);
    let top = 44.0 + legend_rows * 16.0;
    let width = 900.0;
    let plot_w = width - left - right;
    let max = groups
        .iter()
        .flat_map(|g| g.values.iter().flatten())
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let group_h = series.len() as f64 * bar_h + gap;
    let height = top + groups.len() as f64 * group_h + 40.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
        esc(title)
    );
    for (i, name) in series.iter().enumerate() {
        let x = left + (i % per_row) as f64 * 200.0;
        let y = 32.0 + (i / per_row) as f64 * 16.0;
        s += &format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
            COLORS[i % COLORS.len()],
            x + 14.0,
            y + 9.0,
            esc(name)
        );
    }
    for (gi, g) in groups.iter().enumerate() {
        let y0 = top + gi as f64 * group_h;
        s += &format!("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 8.0, y0 + group_h / 2.0, esc(&g.label));
        for (si, v) in g.values.iter().enumerate() {
            let Some(v) = v else { continue };
            let y = y0 + si as f64 * bar_h;
            let w = (v.abs() / max * plot_w).max(1.0);
            s += &format!(
                "<rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{}\">{}</text>\n",
                bar_h - 2.0,
                COLORS[si % COLORS.len()],
                left + w + 4.0,
                y + bar_h - 4.0,
                esc(&fmt(*v))
            );
        }
    }
    s += &format!(
        "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>\n<text x=\"{left}\" y=\"{}\">{}</text>\n</svg>\n",
        height - 30.0,
        height - 12.0,
        esc(unit)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn draws_one_bar_per_value() {
        let g = vec![Group { label: "cg.S t=1".into(), values: vec![Some(1.0), None, Some(2.0)] }];
        let s = bars("t", "MB", &["a", "b", "c"], &g, &|v| format!("{v}"));
        assert!(s.starts_with("<svg"));
        // 3 legend squares + background + 2 bars
        assert_eq!(s.matches("<rect").count(), 6);
        assert!(s.contains(">2<") && s.contains("cg.S t=1"));
    }
}
