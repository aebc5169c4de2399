//! The three tools of seed 002 (chapter 25.2): their names, JSON Schemas, enums,
//! defaults and required fields exactly as the seed defines them, the seed's
//! Chinese descriptions said in English. Every face (JS `memoryRecordTools`, the
//! AI SDK form, MCP) sends these texts as they are.

use crate::toolset::Tool;

/// The records toolset, in the seed's order.
pub const TOOLS: [Tool; 3] = [
    Tool {
        name: "memory_store",
        description: "Store important information in the persistent memory system. Call this tool when you find information that will be useful in the future (user preferences, project progress, key decisions, important facts).",
        input_schema: r#"{"type":"object","properties":{"content":{"type":"string","description":"The information to store; it should be concise and clear, with enough context to be understood on its own."},"category":{"type":"string","enum":["user_preference","project_context","factual_knowledge","decision_log","relationship","task_progress"],"description":"The memory's category, used to filter later retrievals."},"tags":{"type":"array","items":{"type":"string"},"description":"A list of keyword tags, used in retrieval."},"importance":{"type":"integer","minimum":1,"maximum":5,"description":"How important it is, from 1 to 5; it affects retrieval priority and the forgetting policy."},"expires_at":{"type":"string","format":"date-time","description":"An optional expiry time in ISO 8601 format. If it is not set, the memory is kept permanently."}},"required":["content","category","importance"]}"#,
        read_only: false,
    },
    Tool {
        name: "memory_retrieve",
        description: "Retrieve relevant information from the persistent memory system. Call this tool before starting a complex task, or when you need to know the user's background.",
        input_schema: r#"{"type":"object","properties":{"query":{"type":"string","description":"The retrieval query: describe in natural language what you are looking for."},"categories":{"type":"array","items":{"type":"string"},"description":"Limit retrieval to these categories; if empty, every category is searched."},"limit":{"type":"integer","default":10,"description":"The most results to return."},"min_importance":{"type":"integer","minimum":1,"maximum":5,"default":1,"description":"The lowest importance to return."}},"required":["query"]}"#,
        read_only: true,
    },
    Tool {
        name: "memory_delete",
        description: "Delete a memory entry that is no longer valid. Call it when information has expired, contradicts other information, or the user asks for it to be forgotten.",
        input_schema: r#"{"type":"object","properties":{"memory_id":{"type":"string","description":"The ID of the memory entry to delete."},"reason":{"type":"string","description":"Why it is deleted, for the audit log."}},"required":["memory_id","reason"]}"#,
        read_only: false,
    },
];

/// The tool called `name`.
pub(crate) fn tool(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}
