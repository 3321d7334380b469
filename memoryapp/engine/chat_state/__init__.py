"""A chat's working memory (seed 000's short-term memory): the task in progress, kept in view.

Named `ChatState` in code and "Keeping in mind for this chat" on the page, apart from the long-term
memories' own `working` lifecycle tier. Entries live in Redis (store.py), are filled by the chat (rules
without a model, rules.py; the reply's own trailer with one, trailer.py), carried in every turn's prompt
(prompt.py), and offered to long-term memory when the chat ends (engine/chat/state_offer.py)."""
