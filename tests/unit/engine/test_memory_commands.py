"""Which chat turns are about memory itself (engine/chat/memory_commands.py): named phrasings, both languages."""

from __future__ import annotations

import pytest

from memoryapp.engine.chat.memory_commands import Command, Intent, parse_command

LISTING = [
    "What do you remember about me?",
    "what do you know about me",
    "list my memories",
    "Show me my memories",
    "What have you learned about me so far?",
    "What's in your memory?",
    "what memories do you have?",
    "Hey, what do you remember about me?",
    "Could you please tell me what you know about me?",
    "Show me everything you remember about me.",
    "What do you remember?",
    "你记得我什么？",
    "你都记住了我哪些事",
    "你知道我什么",
    "列出我的记忆",
    "你对我了解多少？",
    "看看我的所有记忆",
    "关于我你都记得什么",
    "你记住了哪些关于我的事",
    "你对我有哪些记忆",
    "说说你记得的关于我的事",
    "What are my memories?",
    "Which memories do you have?",
    "list all memories",
    "What have you got on me?",
    "What information do you have about me?",
    "你对我都知道些什么",
    "说说你对我的了解",
    "你存了我哪些信息",
]
FORGETTING = [
    ("Forget that I live in Berlin.", "I live in Berlin"),
    ("please forget my address", "my address"),
    ("delete the memory that I work at Acme", "I work at Acme"),
    ("Can you forget that I have a cat?", "I have a cat"),
    ("Stop remembering that I'm vegetarian", "I'm vegetarian"),
    ("Please remove the fact that I'm vegetarian", "I'm vegetarian"),
    ("remove from memory that I like jazz", "I like jazz"),
    ("Can you delete my address?", "my address"),
    ("erase the memory about my job", "my job"),
    ("ok, forget that I work at Google", "I work at Google"),
    ("忘掉我喜欢喝乌龙茶这件事。", "我喜欢喝乌龙茶"),
    ("别再记着我养猫了", "我养猫"),
    ("把我住在北京这件事忘掉吧", "我住在北京"),
    ("删除关于我工作的记忆", "我工作"),
    ("不要再记着我的生日了", "我的生日"),
    ("你可以忘了我喜欢咖啡这件事吗", "我喜欢咖啡"),
    ("把关于我女朋友的记忆删掉", "我女朋友"),
    ("you can forget that I like jazz", "I like jazz"),
    ("remove my address from your memory", "my address"),
    ("delete the info about my address", "my address"),
    ("忘了我住在北京吧", "我住在北京"),
    ("请删除我住在北京的记忆", "我住在北京"),
    ("你可以不用记着我养猫了", "我养猫"),
]
ORDINARY = [
    "forget it",
    "Never mind, forget it.",
    "Forget that, let's talk about Rust instead.",
    "How do I delete a file in Linux?",
    "delete the file foo.txt",
    "remove duplicates from this list",
    "I forgot my keys",
    "Don't forget to buy milk",
    "What do you know about mercury?",
    "what do you remember about my diet?",
    "What do you remember about Paris?",
    "what do you think about me learning rust?",
    "I live in Berlin",
    "show memory usage in linux",
    "list all memory leaks in this code",
    "What's the memory of a goldfish?",
    "忘记带钥匙了",
    "我忘了密码怎么办",
    "忘了说，我明天出差",
    "你记得我喜欢什么吗",
    "我喜欢喝乌龙茶",
]


@pytest.mark.parametrize("text", LISTING)
def test_it_hears_a_request_to_list_memories(text):
    assert parse_command(text) == Command(Intent.LIST)


@pytest.mark.parametrize(("text", "target"), FORGETTING)
def test_it_hears_what_to_forget(text, target):
    assert parse_command(text) == Command(Intent.FORGET, target)


@pytest.mark.parametrize("text", ["Please forget everything", "忘掉所有记忆"])
def test_it_hears_forget_everything_without_a_target(text):
    assert parse_command(text) == Command(Intent.FORGET, "")


@pytest.mark.parametrize("text", ORDINARY)
def test_it_leaves_an_ordinary_turn_alone(text):
    assert parse_command(text) is None
