const mods = process.argv.slice(2);
for (const m of mods) { const t = performance.now(); await import(m); console.log(m, (performance.now() - t).toFixed(1), 'ms', (process.memoryUsage().rss/1e6).toFixed(0), 'MB'); }
