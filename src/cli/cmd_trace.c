/* cmd_trace.c: `czk trace`: fetch the daemon's timeline (Chrome trace JSON, via czk.v1.Admin/GetTrace) or read a
 * trace file, and render a self-contained HTML timeline: one lane per engine thread (GPU workers, synthesis workers,
 * finalizers, dispatcher) with its spans, counter tracks (memory budget use, queue depths, device kernel-busy) as area
 * charts, and a per-lane busy % so an operator can see at a glance why a GPU was idle. The page embeds the trace and a
 * small script (no network access needed); chrome://tracing or Perfetto open the .json as well. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "cli/cli.h"
#include "api/client.h"
#include "core/mapfile.h"

static const char k_html_head[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>czk timeline</title>\n<style>\n"
    "body{font:12px sans-serif;margin:12px;background:#fafafa}h1{font-size:16px}\n"
    ".lane{font:11px monospace}svg{background:#fff;border:1px solid #ccc}\n"
    "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}\n"
    "</style></head><body>\n<h1>czk timeline</h1><div id=\"sum\"></div><div id=\"tl\"></div>\n"
    "<p>Spans: hover for name, duration and arguments. Counter tracks are drawn below the lanes.</p>\n"
    "<script id=\"trace\" type=\"application/json\">\n";

static const char k_html_tail[] =
    "\n</script>\n<script>\n"
    "const T=JSON.parse(document.getElementById('trace').textContent);\n"
    "const ev=(Array.isArray(T)?T:T.traceEvents)||[];\n"
    "const names={};for(const e of ev){if(e.ph==='M'&&e.name==='thread_name')names[e.pid+':'+e.tid]=e.args.name;\n"
    " if(e.ph==='M'&&e.name==='process_name')names[e.pid]=e.args.name;}\n"
    "let t0=Infinity,t1=-Infinity;const lanes={},ctr={};\n"
    "for(const e of ev){if(e.ph==='X'){const k=e.pid+':'+e.tid;(lanes[k]=lanes[k]||[]).push(e);\n"
    "  t0=Math.min(t0,e.ts);t1=Math.max(t1,e.ts+(e.dur||0));}\n"
    " else if(e.ph==='C'){for(const a in e.args){const k=e.name+(Object.keys(e.args).length>1?'.'+a:'');\n"
    "  (ctr[k]=ctr[k]||[]).push([e.ts,+e.args[a]]);}t0=Math.min(t0,e.ts);t1=Math.max(t1,e.ts);}}\n"
    "if(!isFinite(t0)){t0=0;t1=1;}const span=Math.max(1,t1-t0);\n"
    "const keys=Object.keys(lanes).sort((a,b)=>(names[a]||a).localeCompare(names[b]||b,undefined,{numeric:true}));\n"
    "const W=1400,L=190,LH=18,CH=48;const cks=Object.keys(ctr).sort();\n"
    "const H=keys.length*LH+cks.length*(CH+6)+40;const x=t=>L+(t-t0)/span*(W-L-10);\n"
    "const col=s=>{let h=0;for(const c of s)h=(h*31+c.charCodeAt(0))>>>0;return 'hsl('+(h%360)+',60%,55%)';};\n"
    "let svg='<svg width=\"'+W+'\" height=\"'+H+'\" xmlns=\"http://www.w3.org/2000/svg\">';\n"
    "const esc=s=>String(s).replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'}[c]));\n"
    "for(const k of keys){if(!names[k]){const [p,t]=k.split(':');if(/job\\*256/.test(names[p]||''))\n"
    "  names[k]='job '+Math.floor(t/256)+' part '+(t%256);}}\n"
    "const union=a=>{const s=a.map(e=>[e.ts,e.ts+(e.dur||0)]).sort((p,q)=>p[0]-q[0]);let b=0,c=-Infinity,e=-Infinity;\n"
    " for(const [x,y] of s){if(x>e){if(e>c)b+=e-c;c=x;e=y;}else if(y>e)e=y;}if(e>c)b+=e-c;return b;};\n"
    "let rows='';keys.forEach((k,i)=>{const y=10+i*LH;const busy=union(lanes[k]);\n"
    " svg+='<text class=\"lane\" x=\"4\" y=\"'+(y+12)+'\">'+esc(names[k]||k)+'</text>';\n"
    " svg+='<line x1=\"'+L+'\" x2=\"'+(W-10)+'\" y1=\"'+(y+LH-1)+'\" y2=\"'+(y+LH-1)+'\" stroke=\"#eee\"/>';\n"
    " for(const e of lanes[k]){const w=Math.max(0.5,x(e.ts+(e.dur||0))-x(e.ts));\n"
    "  svg+='<rect x=\"'+x(e.ts)+'\" y=\"'+(y+2)+'\" width=\"'+w+'\" height=\"'+(LH-5)+'\" fill=\"'+col(e.name)+'\">'+\n"
    "   '<title>'+esc(e.name)+' '+((e.dur||0)/1000).toFixed(3)+' ms '+esc(JSON.stringify(e.args||{}))+'</title></rect>';}\n"
    " rows+='<tr><td>'+esc(names[k]||k)+'</td><td>'+lanes[k].length+'</td><td>'+(100*busy/span).toFixed(1)+'%</td></tr>';});\n"
    "let y=10+keys.length*LH+20;for(const k of cks){const pts=ctr[k].sort((a,b)=>a[0]-b[0]);\n"
    " const mx=Math.max(1e-9,...pts.map(p=>p[1]));let d='M'+x(t0)+' '+(y+CH);let last=0;\n"
    " for(const p of pts){d+=' L'+x(p[0])+' '+(y+CH-last/mx*CH)+' L'+x(p[0])+' '+(y+CH-p[1]/mx*CH);last=p[1];}\n"
    " d+=' L'+x(t1)+' '+(y+CH-last/mx*CH)+' L'+x(t1)+' '+(y+CH)+' Z';\n"
    " svg+='<text class=\"lane\" x=\"4\" y=\"'+(y+14)+'\">'+esc(k)+'</text><text class=\"lane\" x=\"4\" y=\"'+(y+28)+'\">max '+\n"
    "  (mx>=1e6?(mx/1048576).toFixed(1)+' Mi':mx.toFixed(2))+'</text><path d=\"'+d+'\" fill=\"'+col(k)+'\" opacity=\"0.6\"/>';y+=CH+6;}\n"
    "svg+='<text x=\"'+L+'\" y=\"'+(H-6)+'\">0 s</text><text x=\"'+(W-80)+'\" y=\"'+(H-6)+'\">'+(span/1e6).toFixed(3)+' s</text></svg>';\n"
    "document.getElementById('tl').innerHTML=svg;\n"
    "document.getElementById('sum').innerHTML='<p>'+ev.length+' events over '+(span/1e6).toFixed(3)+\n"
    " ' s</p><table><tr><th>lane</th><th>spans</th><th>busy</th></tr>'+rows+'</table><br>';\n"
    "</script></body></html>\n";

/* Write the HTML page embedding json (the JSON must not contain "</script", which JSON escaping of '/' prevents
 * only when present; we escape "</" defensively). */
int czk__trace_write_html(const char *path, const char *json) {
  czk__afile af; /* temp + fsync + rename */
  if (czk__afile_open(&af, path, "w") != CZK_OK) return -1;
  FILE *f = af.f;
  fputs(k_html_head, f);
  for (const char *p = json; *p; p++) {
    if (p[0] == '<' && p[1] == '/') {
      fputs("<\\/", f);
      p++;
      continue;
    }
    fputc(*p, f);
  }
  fputs(k_html_tail, f);
  return czk__afile_commit(&af) == CZK_OK ? 0 : -1;
}

int czk_cmd_trace(int argc, char **argv) {
  const char *addr = czk__client_default_addr(), *in = NULL, *out_json = NULL, *out_html = "czk-timeline.html";
  static const struct option lo[] = {{"addr", 1, 0, 'a'}, {"from", 1, 0, 'f'}, {"json", 1, 0, 'j'},
                                     {"html", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': addr = optarg; break;
    case 'f': in = optarg; break;
    case 'j': out_json = optarg; break;
    case 'o': out_html = optarg; break;
    case 'h':
      printf("usage: czk trace [--addr ADDR | --from TRACE.json] [--json OUT.json] [--html OUT.html]\n"
             "Fetches the running daemon's timeline (or reads a Chrome trace file) and writes a self-contained HTML\n"
             "timeline (default czk-timeline.html): a lane per GPU/synthesis worker, counters for memory and queues.\n");
      return 0;
    default: return 2;
    }
  }
  if (optind != argc) {
    fprintf(stderr, "czk trace: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  char *json = NULL;
  if (in) {
    uint8_t *data;
    size_t len;
    czk_status st = czk__read_file(in, 1u << 30, &data, &len);
    if (st != CZK_OK) {
      fprintf(stderr, "czk trace: cannot read %s: %s\n", in, czk_status_str(st));
      return 1;
    }
    json = (char *)data; /* NUL-terminated by czk__read_file */
  } else {
    Cuzk__V1__GetTraceRequest r = CUZK__V1__GET_TRACE_REQUEST__INIT;
    ProtobufCMessage *o;
    if (czk__client_call(addr, "/cuzk.v1.Admin/GetTrace", &r.base, &cuzk__v1__get_trace_response__descriptor, &o, 60000,
                         false, NULL, 0))
      return 1;
    json = strdup(((Cuzk__V1__GetTraceResponse *)o)->chrome_trace_json);
    protobuf_c_message_free_unpacked(o, NULL);
    if (!json) return 1;
  }
  int rc = 0;
  if (out_json) {
    if (czk__write_file_atomic(out_json, json, strlen(json)) != CZK_OK) {
      fprintf(stderr, "czk trace: cannot write %s\n", out_json);
      rc = 1;
    }
  }
  if (czk__trace_write_html(out_html, json) != 0) {
    fprintf(stderr, "czk trace: cannot write %s\n", out_html);
    rc = 1;
  } else {
    printf("timeline written to %s\n", out_html);
  }
  free(json);
  return rc;
}
