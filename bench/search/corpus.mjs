// The corpus of `npm run bench:search`: memories as an agent keeps them (project notes
// and decisions, meetings, people, tasks, preferences), in English, German and Chinese,
// generated from a seed (no downloads), at any size. Around the generated background it
// plants the documents of documents.json, the same at every size, so the labels of
// queries.json hold at 1k, 10k and 100k alike: the background is written from its own
// vocabulary, and every background document is checked to contain none of the
// identifiers the queries look for.
import { readFileSync } from 'node:fs';
import { rng } from '../workload.mjs';

const here = (f) => new URL(f, import.meta.url);
export const DOCUMENTS = JSON.parse(readFileSync(here('./documents.json'), 'utf8'));
export const QUERIES = JSON.parse(readFileSync(here('./queries.json'), 'utf8')).queries;

const EN = {
  projects: ['apollo', 'hermes', 'orion', 'atlas', 'zephyr', 'kestrel', 'nova', 'polaris', 'vega', 'lyra'],
  people: ['Priya', 'Marcus', 'Sofia', 'Tom', 'Elena', 'Jonas', 'Aisha', 'Kenji', 'Laura', 'Omar', 'Grace', 'Daniel'],
  components: ['ledger service', 'login flow', 'search API', 'billing worker', 'data loader', 'CI pipeline', 'release pipeline', 'notification service', 'admin dashboard', 'payment gateway', 'caching layer', 'mobile app', 'design system', 'onboarding flow', 'reporting job', 'database schema', 'message queue', 'feature flags', 'analytics pipeline', 'image uploader'],
  tech: ['PostgreSQL', 'Redis', 'Kafka', 'Kubernetes', 'Terraform', 'React', 'Go', 'Rust', 'Python', 'Node.js', 'GraphQL', 'gRPC', 'Elasticsearch', 'S3', 'Docker', 'Grafana'],
  prefs: ['written updates', 'short calls', 'pairing sessions', 'morning meetings', 'detailed design docs', 'quick Slack threads', 'video off in calls', 'agendas sent a day ahead'],
  tasks: ['update the roadmap', 'send the weekly report', 'clean up stale feature flags', 'rotate the on-call schedule', 'write the quarterly goals', 'archive the old dashboards', 'prepare the demo', 'review open pull requests'],
  actions: ['ship it next week', 'start with a canary', 'add more unit tests', 'push it one sprint', 'split the work in two', 'ask security for a review'],
  feedback: ['the interface is too busy', 'pages load slowly', 'they want a CSV export', 'the docs are unclear', 'onboarding takes too long', 'search results look random'],
  costs: ['compute', 'storage', 'contractors', 'licences', 'observability'],
  weekdays: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  kinds: ['notes', 'meetings', 'standups', 'ideas', 'reviews'],
};

function english(pick, int, date) {
  const P = () => pick(EN.projects);
  const Pc = () => {
    const p = P();
    return p[0].toUpperCase() + p.slice(1);
  };
  const N = () => pick(EN.people);
  const C = () => pick(EN.components);
  const T = () => pick(EN.tech);
  const lines = [
    () => `${N()} finished the ${C()} refactor; next up is the ${C()}.`,
    () => `Standup: ${Pc()} is on track for the ${pick(['beta', 'GA', 'pilot', 'internal'])} milestone.`,
    () => `${Pc()} ${C()} latency went up after the ${T()} upgrade; ${N()} is looking into it.`,
    () => `Decided to keep ${T()} for the ${C()} in ${Pc()} for now.`,
    () => `Bug ${P().toUpperCase()}-${int(100, 9999)}: the ${C()} returns 500 when the request is empty.`,
    () => `${N()} prefers ${pick(EN.prefs)}.`,
    () => `Reminder: ${pick(EN.tasks)} before ${date()}.`,
    () => `Meeting with ${N()} about the ${Pc()} ${C()}: agreed to ${pick(EN.actions)}.`,
    () => `The ${C()} of ${Pc()} now runs on ${T()}.`,
    () => `${Pc()} retro: too many manual steps in the ${C()} release.`,
    () => `Customer feedback on ${Pc()}: ${pick(EN.feedback)}.`,
    () => `Ask ${N()} about the ${C()} work on ${pick(EN.weekdays)}.`,
    () => `${Pc()} budget for Q${int(1, 4)}: ${int(10, 400)}k USD, mostly ${pick(EN.costs)}.`,
    () => `PR ${int(1000, 9999)} touches the ${C()} and needs a second reviewer.`,
    () => `${N()} will be out from ${date()}; ${N()} covers the ${C()}.`,
  ];
  const project = P();
  const kind = pick(EN.kinds);
  const d = date();
  const body = [`# ${project[0].toUpperCase()}${project.slice(1)} ${kind} ${d}`];
  for (let i = int(3, 8); i > 0; i--) body.push(`- ${pick(lines)()}`);
  return { dir: `/memories/projects/${project}/${kind}`, stem: d, text: body.join('\n') };
}

const DE = {
  projects: ['bergblick', 'nordlicht', 'falke', 'lindenhof', 'seeblick', 'sonnenhang', 'eichwald', 'moorland'],
  people: ['Jana', 'Lukas', 'Mehmet', 'Claudia', 'Felix', 'Sabine', 'Tobias', 'Katrin', 'Jonas', 'Anke', 'Stefan', 'Leonie'],
  components: ['Anmeldeseite', 'Schnittstelle zum Lager', 'Rechnungsstellung', 'Zahlungsabwicklung', 'Benutzeroberfläche', 'Testumgebung', 'Bereitstellung', 'Suchfunktion', 'Berichtserstellung', 'Datenbankanbindung', 'Benachrichtigungsdienst', 'Verwaltungsoberfläche', 'Bildverarbeitung', 'Exportfunktion', 'Rechteverwaltung', 'Zwischenspeicher'],
  tech: ['PostgreSQL', 'Redis', 'Kafka', 'Kubernetes', 'Terraform', 'React', 'Go', 'Java', 'Python', 'TypeScript', 'Docker', 'Grafana'],
  prefs: ['schriftliche Zusammenfassungen', 'kurze Telefonate', 'Termine am Nachmittag', 'ausführliche Konzeptpapiere', 'klare Tagesordnungen', 'Rückmeldungen per Chat'],
  tasks: ['den Wochenbericht schicken', 'die Projektübersicht aktualisieren', 'die Bereitschaftsliste anpassen', 'alte Testdaten löschen', 'die Kundenpräsentation vorbereiten', 'offene Änderungsanfragen prüfen', 'das Sprintziel festhalten'],
  actions: ['nächste Woche live zu gehen', 'erst einen Testlauf zu machen', 'mehr Komponententests zu schreiben', 'die Arbeit auf zwei Sprints zu verteilen', 'den Datenschutz einzubeziehen'],
  feedback: ['die Oberfläche ist zu unübersichtlich', 'die Ladezeiten sind zu lang', 'es fehlt ein Export als Tabelle', 'die Dokumentation ist unklar', 'die Suche findet zu wenig'],
  kinds: ['notizen', 'besprechungen', 'protokolle', 'ideen'],
};

function german(pick, int, date) {
  const P = () => {
    const p = pick(DE.projects);
    return p[0].toUpperCase() + p.slice(1);
  };
  const N = () => pick(DE.people);
  const C = () => pick(DE.components);
  const T = () => pick(DE.tech);
  const lines = [
    () => `${N()} hat die Überarbeitung der ${C()} abgeschlossen, als Nächstes kommt die ${C()}.`,
    () => `Stand ${P()}: Der Meilenstein für den Testbetrieb ist im Plan.`,
    () => `Bei ${P()} ist die Antwortzeit der ${C()} nach dem Update von ${T()} gestiegen, ${N()} schaut sich das an.`,
    () => `Entscheidung: ${P()} behält ${T()} für die ${C()} vorerst bei.`,
    () => `Fehler ${int(100, 9999)} in der ${C()}: leere Anfragen führen zu einem Serverfehler.`,
    () => `${N()} bevorzugt ${pick(DE.prefs)}.`,
    () => `Erinnerung: bis ${date()} ${pick(DE.tasks)}.`,
    () => `Besprechung mit ${N()} zur ${C()} von ${P()}: Wir haben vereinbart, ${pick(DE.actions)}.`,
    () => `Die ${C()} von ${P()} läuft jetzt auf ${T()}.`,
    () => `Rückblick ${P()}: zu viele Handgriffe beim Ausrollen der ${C()}.`,
    () => `Rückmeldung vom Kunden zu ${P()}: ${pick(DE.feedback)}.`,
    () => `${N()} wegen der ${C()} am ${pick(['Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag'])} fragen.`,
    () => `Budget ${P()} im Quartal ${int(1, 4)}: ${int(10, 400)}.000 Euro, vor allem für Rechenleistung und Lizenzen.`,
    () => `${N()} ist ab ${date()} im Urlaub, ${N()} übernimmt die ${C()}.`,
  ];
  const project = pick(DE.projects);
  const kind = pick(DE.kinds);
  const d = date();
  const body = [`# ${project[0].toUpperCase()}${project.slice(1)} ${kind} ${d}`];
  for (let i = int(3, 8); i > 0; i--) body.push(`- ${pick(lines)()}`);
  return { dir: `/memories/projekte/${project}/${kind}`, stem: d, text: body.join('\n') };
}

const ZH = {
  projects: [['天桥', 'tianqiao'], ['星河', 'xinghe'], ['青松', 'qingsong'], ['长城', 'changcheng'], ['白鹭', 'bailu'], ['明月', 'mingyue'], ['远山', 'yuanshan'], ['春风', 'chunfeng']],
  people: ['王芳', '李强', '张伟', '刘敏', '陈静', '杨洋', '赵磊', '黄丽', '周杰', '吴娜'],
  components: ['账本服务', '登录流程', '搜索接口', '计费服务', '数据加载器', '发布流程', '通知服务', '管理后台', '支付网关', '缓存层', '移动端', '设计系统', '新手引导', '报表任务', '数据库表结构', '消息队列', '功能开关', '数据分析管道', '图片上传'],
  tech: ['PostgreSQL', 'Redis', 'Kafka', 'Kubernetes', 'Terraform', 'React', 'Go', 'Rust', 'Python', 'Node.js', 'Docker', 'Grafana'],
  prefs: ['书面汇报', '简短的电话', '结对编程', '上午开会', '详细的设计文档', '在群里快速讨论'],
  tasks: ['更新路线图', '发送周报', '清理过期的功能开关', '调整值班表', '准备演示', '检查待合并的代码'],
  actions: ['下周上线', '先做小流量验证', '补充单元测试', '推迟一个迭代', '把工作拆成两部分'],
  feedback: ['界面太复杂', '页面加载慢', '希望支持导出表格', '文档不够清楚', '新用户上手太慢'],
  kinds: ['notes', 'meetings', 'standups', 'ideas'],
};

function chinese(pick, int, date) {
  const N = () => pick(ZH.people);
  const C = () => pick(ZH.components);
  const T = () => pick(ZH.tech);
  const P = () => pick(ZH.projects)[0];
  const lines = [
    () => `${N()}完成了${C()}的重构，下一步是${C()}。`,
    () => `站会：${P()}项目按计划推进，里程碑预计${date()}完成。`,
    () => `${P()}的${C()}在升级${T()}之后延迟变高，${N()}正在排查。`,
    () => `决定${P()}的${C()}暂时继续使用${T()}。`,
    () => `缺陷 ${int(100, 9999)}：${C()}在请求为空时返回500错误。`,
    () => `${N()}喜欢${pick(ZH.prefs)}。`,
    () => `提醒：${date()}之前${pick(ZH.tasks)}。`,
    () => `和${N()}讨论${P()}的${C()}：同意${pick(ZH.actions)}。`,
    () => `${P()}的${C()}现在运行在${T()}上。`,
    () => `${P()}复盘：${C()}上线时手工步骤太多。`,
    () => `客户对${P()}的反馈：${pick(ZH.feedback)}。`,
    () => `${P()}第${int(1, 4)}季度预算${int(10, 400)}万元，主要用于算力和软件授权。`,
    () => `${N()}从${date()}开始休假，${C()}由${N()}负责。`,
  ];
  const [name, dir] = pick(ZH.projects);
  const kind = pick(ZH.kinds);
  const d = date();
  const body = [`# ${name} ${d}`];
  for (let i = int(3, 8); i > 0; i--) body.push(`- ${pick(lines)()}`);
  return { dir: `/memories/projects/${dir}/${kind}`, stem: d, text: body.join('\n') };
}

const pad = (n, w) => String(n).padStart(w, '0');

/**
 * The corpus of `size` live memories: the planted documents and `size` minus their
 * number of background ones (40% English, 30% German, 30% Chinese). Answers
 * `{ live: [{path, content, lang}], deleted, redacted }`: `deleted` and `redacted` as
 * documents.json has them (written, indexed, then removed by the bench).
 */
export function corpus({ size, seed = 46 }) {
  const rand = rng(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const date = () => `2026-${pad(int(1, 12), 2)}-${pad(int(1, 28), 2)}`;
  const forbidden = QUERIES.filter((q) => q.kind === 'identifier').map((q) => q.query.toLowerCase());
  const planted = DOCUMENTS.planted.map((d) => ({ path: d.path, content: d.text, lang: d.lang }));
  const paths = new Set(planted.map((d) => d.path));
  const live = [];
  const background = size - planted.length;
  if (background < 0) throw new RangeError(`a corpus needs at least ${planted.length} memories`);
  let n = 0;
  while (live.length < background) {
    const r = rand();
    const [lang, make] = r < 0.4 ? ['en', english] : r < 0.7 ? ['de', german] : ['zh', chinese];
    const { dir, stem, text } = make(pick, int, date);
    const path = `${dir}/${stem}-${pad(n++, 6)}.md`;
    const lower = text.toLowerCase();
    if (paths.has(path) || forbidden.some((f) => lower.includes(f))) continue;
    paths.add(path);
    live.push({ path, content: text, lang });
  }
  // The planted documents spread through the background (each at a fixed place for a
  // given size), so no engine finds them first by insertion order.
  const step = Math.max(1, Math.floor(live.length / planted.length));
  planted.forEach((d, i) => live.splice(Math.min(live.length, i * (step + 1)), 0, d));
  return { live, deleted: DOCUMENTS.deleted, redacted: DOCUMENTS.redacted };
}

/** Parses a size: `1k` is 1,000, `100k` is 100,000; a plain number as is. */
export function parseSize(s) {
  const m = /^(\d+)(k?)$/i.exec(String(s).trim());
  if (!m) throw new RangeError(`not a corpus size: ${s} (say 1k, 10k, 100k or a number)`);
  return Number(m[1]) * (m[2] ? 1000 : 1);
}

/** Words of a text for the label checks: runs of letters or digits, lowercased, and each Han character. */
const words = (s) => new Set(s.toLowerCase().match(/\p{Script=Han}|[\p{L}\p{N}]+/gu) ?? []);

/**
 * Checks that the labels can hold: each relevant path is planted, each stale path is
 * a deleted or redacted document, a deleted path is not planted again, and no word of
 * the query (no Han character, for Chinese) is in a redacted document's path or its
 * text after the redaction, so that returning it can only come from the redacted text. Answers
 * the problems found (none: an empty array).
 */
export function checkLabels() {
  const problems = [];
  const planted = new Set(DOCUMENTS.planted.map((d) => d.path));
  const deleted = new Set(DOCUMENTS.deleted.map((d) => d.path));
  const redacted = new Map(DOCUMENTS.redacted.map((d) => [d.path, d]));
  const ids = new Set();
  for (const q of QUERIES) {
    if (ids.has(q.id)) problems.push(`${q.id}: id used twice`);
    ids.add(q.id);
    for (const p of q.relevant) if (!planted.has(p)) problems.push(`${q.id}: relevant ${p} is not planted`);
    for (const p of q.stale ?? []) {
      if (!deleted.has(p) && !redacted.has(p)) problems.push(`${q.id}: stale ${p} is neither deleted nor redacted`);
      if (deleted.has(p) && planted.has(p)) problems.push(`${q.id}: deleted ${p} is planted again`);
      const r = redacted.get(p);
      if (r) {
        // Its path is indexed too (by memdir and by the FTS5 peers).
        const after = words(`${r.after} ${r.path}`);
        const shared = [...words(q.query)].filter((w) => after.has(w) || [...after].some((a) => a.length >= 4 && w.length >= 4 && (a.includes(w) || w.includes(a))));
        if (shared.length) problems.push(`${q.id}: the redacted ${p} still holds ${shared.join(', ')} after the redaction`);
      }
    }
    if (['deleted', 'redacted'].includes(q.kind) !== Boolean(q.stale?.length)) problems.push(`${q.id}: a ${q.kind} query ${q.stale ? 'with' : 'without'} stale paths`);
  }
  return problems;
}
