// The test embedder (issue 47): deterministic, needing no model, for tests, the
// benchmark and examples only: it is not in the npm package's files or entries.
// Its twin is src/search/test_embedder.rs (Rust, feature `conformance`); both
// answer the same numbers, which tests/conformance/search.json's semantic cases
// (made by the Rust one, replayed here in Node, workerd and Chromium) check.
//
// A text's vector counts, each into one of `dims` dimensions by its FNV-1a hash
// (the sign by the hash's top bit): the character trigrams of each word (a run of
// letters and digits, lowercased, padded with a space each side), and, four times
// over, each concept one of whose forms the lowercased text holds. The concepts
// stand in for what a real model knows, so that cross-language and paraphrase
// tests exercise memdir's plumbing; they say nothing of a real model's quality.

/** The concepts and their forms: the same table as the Rust twin's `CONCEPTS`. */
export const CONCEPTS = [
  ['dark', ['dark', 'night mode', '夜间', '深色', '暗い', 'ダーク', 'dunkel', 'sombre']],
  ['theme', ['theme', ' mode', '模式', '主题', 'モード', 'テーマ', 'thema', 'modus', 'thème']],
  ['meeting', ['meeting', 'call', '会议', '会議', 'besprechung', 'termin', 'réunion']],
  ['morning', ['morning', 'before ten', 'before 10', '早上', '上午', '朝', 'morgens', 'vormittag', 'matin']],
  ['dislike', ['hate', 'dislike', 'can\'t stand', '讨厌', '不喜欢', '嫌い', 'hasst', 'mag keine', 'déteste']],
  ['like', ['like', 'love', 'prefer', '喜欢', '好き', 'mag ', 'liebt', 'aime']],
  ['coffee', ['coffee', 'espresso', '咖啡', 'コーヒー', 'kaffee', 'café']],
  ['tea', ['tea', '茶', 'お茶', 'tee', 'thé']],
  ['vacation', ['vacation', 'holiday', 'time off', '假期', '休假', '休暇', 'urlaub', 'vacances']],
  ['allergy', ['allerg', '过敏', 'アレルギー', 'unverträglich']],
  ['nut', ['peanut', 'nut', '花生', '坚果', 'ナッツ', 'nuss', 'nüsse', 'arachide']],
  ['birthday', ['birthday', 'born on', '生日', '誕生日', 'geburtstag', 'anniversaire']],
  ['travel', ['flight', 'travel', 'trip', '航班', '旅行', '出差', 'flug', 'reise', 'voyage', 'vol ']],
  ['money', ['budget', 'cost', 'price', 'money', '预算', '费用', '予算', 'kosten', 'geld', 'prix']],
  ['language', ['language', 'speaks', '语言', '言語', 'sprache', 'langue']],
  ['code', ['rust', 'python', 'typescript', 'code', 'programming', '编程', '代码', 'プログラ', 'programmier']],
  ['doctor', ['doctor', 'medical', 'health', '医生', '医院', '医者', 'arzt', 'médecin']],
  ['email', ['email', 'e-mail', 'mail', '邮件', 'メール', 'courriel']],
  ['family', ['wife', 'husband', 'daughter', 'son ', 'family', '家人', '女儿', '家族', 'tochter', 'familie', 'famille']],
  ['food', ['vegetarian', 'vegan', 'meat', '素食', '菜食', 'vegetarisch', 'végétarien']],
];

const CONCEPT_WEIGHT = 4;
const utf8 = new TextEncoder();
const WORD = /[\p{Alphabetic}\p{N}]/u;

function fnv(text) {
  let h = 0x811c9dc5;
  for (const b of utf8.encode(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function add(v, key, w) {
  const h = fnv(key);
  // f32 sums, as the Rust twin's: Math.fround after each step.
  v[h % v.length] = Math.fround(v[h % v.length] + (h >>> 31 === 1 ? -w : w));
}

/** The test embedder's vector of `text` in `dims` dimensions (a Float32Array). */
export function testVector(text, dims = 384) {
  const v = new Float32Array(dims);
  const lower = text.toLowerCase();
  let word = [];
  const flush = () => {
    if (word.length === 0) return;
    const padded = [' ', ...word, ' '];
    for (let i = 0; i + 3 <= padded.length; i++) add(v, padded.slice(i, i + 3).join(''), 1);
    word = [];
  };
  for (const c of lower) {
    if (WORD.test(c)) word.push(c);
    else flush();
  }
  flush();
  for (const [concept, forms] of CONCEPTS) {
    if (forms.some((f) => lower.includes(f))) add(v, `concept:${concept}`, CONCEPT_WEIGHT);
  }
  if (v.every((x) => x === 0)) v[0] = 1;
  return v;
}

/** The test embedder: `{id, dims, embed}` as `openMemory({ embedder })` takes it. */
export function testEmbedder(dims = 384) {
  return {
    id: 'memdir-test-ngram-v1',
    dims,
    async embed(texts) {
      return texts.map((t) => testVector(t, dims));
    },
  };
}

// `memdir search --embedder examples/embedders/test-embedder.mjs`: the CLI takes the default export.
export default testEmbedder;
