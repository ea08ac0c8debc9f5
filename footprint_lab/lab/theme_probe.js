// The theme probe: tells the kernel whether the page around a lab widget is light or dark.
//
// An anywidget with no view of its own (footprint_lab.lab._theme_probe.ThemeProbe). It reads
// the theme the front-end declares on <body> — JupyterLab and Notebook 7 set
// data-jp-theme-light="true|false", VS Code sets data-vscode-theme-kind="vscode-dark|..." —
// and sets its model's "theme" to "light" or "dark"; a MutationObserver tells it again when the
// reader switches themes. The kernel re-templates the widget's charts on each change.

function themeOf(body) {
  const light = body.dataset.jpThemeLight;
  if (light === "false") { return "dark"; }
  if (light === "true") { return "light"; }
  const vscode = body.dataset.vscodeThemeKind || "";
  if (vscode.includes("dark") || vscode.includes("high-contrast")) {
    return vscode.includes("light") ? "light" : "dark";
  }
  return "light";
}

function render({ model, el }) {
  el.classList.add("footprint-theme-probe");
  el.hidden = true;
  const body = el.ownerDocument.body;
  const tell = () => {
    const theme = themeOf(body);
    if (model.get("theme") !== theme) {
      model.set("theme", theme);
      model.save_changes();
    }
  };
  const watch = new MutationObserver(tell);
  watch.observe(body, {
    attributes: true,
    attributeFilter: ["data-jp-theme-light", "data-vscode-theme-kind"],
  });
  tell();
  return () => watch.disconnect();
}

export default { render };
