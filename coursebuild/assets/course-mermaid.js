// Draw every <pre class="mermaid"> with the locally vendored Mermaid (no network needed).
document.addEventListener('DOMContentLoaded', async function () {
  var nodes = document.querySelectorAll('pre.mermaid');
  if (!nodes.length || !window.mermaid) { return; }
  window.mermaid.initialize({startOnLoad: false, securityLevel: 'strict', theme: 'default',
                             flowchart: {htmlLabels: true}});
  try {
    await window.mermaid.run({nodes: nodes});
    document.body.setAttribute('data-mermaid', 'rendered');
  } catch (err) {
    document.body.setAttribute('data-mermaid', 'error');
    console.error('mermaid:', err);
  }
});
