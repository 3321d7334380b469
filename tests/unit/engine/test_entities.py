"""Entities without a model (memoryapp/graph/entities): named bilingual memories, the entities a graph
should get from them, and resolution against names already known."""

from __future__ import annotations

from memoryapp.graph.entities import extract_entities, normalise_name, resolve


def named(text: str) -> set[tuple[str, str]]:
    return {(e.name, e.type.value) for e in extract_entities(text)}


def test_it_finds_a_city_and_an_employer_in_a_move():
    assert named("I moved to Lisbon last spring to work for Stripe") == {
        ("Lisbon", "place"),
        ("Stripe", "organization"),
    }


def test_it_finds_a_child_by_name_and_her_school_by_its_suffix():
    assert named("my daughter Mia starts at Oak Park Elementary in September") == {
        ("Mia", "person"),
        ("Oak Park Elementary", "organization"),
    }


def test_it_names_a_project_without_the_word_migration_and_skips_the_sentence_start():
    assert named("The Atlas migration is eating all my evenings") == {("Atlas", "project")}
    assert named("Project Falcon ships next week") == {("Falcon", "project")}


def test_it_keeps_a_title_with_the_person_and_drops_a_capitalised_first_word():
    assert named("Dr. Chen says my blood pressure is fine") == {("Dr. Chen", "person")}
    assert named("Went hiking in Yosemite with Marco") == {("Yosemite", "place"), ("Marco", "person")}


def test_it_finds_nothing_in_a_memory_that_names_nothing():
    assert extract_entities("I hate waking up before seven") == []
    assert extract_entities("我对花生过敏") == []


def test_it_takes_a_tool_written_in_lower_case_only_after_a_verb_of_use():
    assert named("we use slack at work and discord with friends") == {("slack", "product"), ("discord", "product")}
    assert named("cut me some slack") == set()


def test_it_keeps_a_products_model_number():
    assert ("iPhone 13 mini", "product") in named("my phone is an iPhone 13 mini")
    assert ("小米 14", "product") in named("我的手机是小米 14")


def test_it_reads_chinese_company_and_tools_in_one_memory():
    assert named("我在字节跳动做后端，用 Go 和 Kafka") == {
        ("字节跳动", "organization"),
        ("Go", "product"),
        ("Kafka", "product"),
    }


def test_it_finds_a_relative_by_name_and_a_university_in_chinese():
    assert named("我妹妹李娜下个月去复旦大学读研") == {("李娜", "person"), ("复旦大学", "organization")}


def test_it_takes_a_quoted_chinese_project_and_a_book_in_brackets():
    assert ("北极星", "project") in named("我们团队在做“北极星”项目，年底上线")
    assert ("三体", "product") in named("我最近在看《三体》")


def test_it_keeps_a_city_and_its_district_as_one_place_but_a_province_and_city_as_two():
    assert named("我们搬到了广州天河区") == {("广州天河区", "place")}
    assert named("我老家在河南郑州") == {("河南", "place"), ("郑州", "place")}


def test_it_reads_a_chinese_name_with_a_title_as_a_person():
    assert ("李医生", "person") in named("我的主治医生是李医生")
    assert ("刘志远", "person") in named("我的导师是刘志远教授")


def test_it_types_an_english_name_by_the_chinese_around_it():
    assert named("我在 Google 做 SRE") == {("Google", "organization")}
    assert named("我和 Kevin 下班一起去打羽毛球") == {("Kevin", "person")}
    assert named("我们 VP 想把 Nebula 项目迁到 AWS") == {("Nebula", "project"), ("AWS", "product")}


def test_it_finds_a_chinese_name_in_an_english_sentence():
    assert named("My husband 张磊 works at Tesla") == {("张磊", "person"), ("Tesla", "organization")}


def test_it_normalises_titles_possessives_case_and_full_width_forms():
    assert normalise_name("Dr. Chen's") == normalise_name("chen") == "chen"
    assert normalise_name("“北极星”项目") == "北极星"
    assert normalise_name("ＡＷＳ") == "aws"
    assert normalise_name("李医生") == normalise_name("李") and normalise_name("The Atlas project") == "atlas"


def test_it_resolves_a_name_to_the_entity_already_known_by_its_normalised_form_or_one_word():
    known = ["Anna Schmidt", "PostgreSQL", "Dr. Chen", "北极星"]
    resolved = resolve(["chen", "Anna", "“北极星”项目", "Lisbon"], known)

    assert [(r.match, r.how) for r in resolved] == [
        ("Dr. Chen", "name"),
        ("Anna Schmidt", "word"),
        ("北极星", "name"),
        (None, "new"),
    ]


def test_it_resolves_by_embedding_only_above_the_threshold():
    vectors = {
        "breadcrumbs": [1.0, 0.05, 0.0],
        "breadcrumb": [1.0, 0.0, 0.0],
        "tidewater": [0.6, 0.8, 0.0],
        "stripe": [0.0, 0.0, 1.0],
    }
    embed = lambda texts: [vectors[t] for t in texts]  # noqa: E731  (a fixed table of vectors)

    resolved = resolve(["Breadcrumbs", "Tidewater"], ["Breadcrumb", "Stripe"], embed=embed, threshold=0.9)

    assert (resolved[0].match, resolved[0].how) == ("Breadcrumb", "embedding")
    assert (resolved[1].match, resolved[1].how) == (None, "new")
    assert resolve(["Breadcrumbs"], ["Breadcrumb"])[0].match is None  # no embedder: names only


def test_it_resolves_another_name_of_the_same_thing_across_scripts():
    known = ["字节跳动", "PostgreSQL", "北京", "Oak Park Elementary"]
    resolved = resolve(["ByteDance", "Postgres", "Beijing", "Oak Park Elementary School", "北京大学"], known)

    assert [(r.match, r.how) for r in resolved] == [
        ("字节跳动", "alias"),
        ("PostgreSQL", "alias"),
        ("北京", "alias"),
        ("Oak Park Elementary", "suffix"),
        (None, "new"),
    ]


def test_it_keeps_a_word_of_two_known_names_new():
    assert resolve(["Anna"], ["Anna Schmidt", "Anna Lee"])[0].match is None


def test_it_reads_a_chat_turns_opener_and_an_activity_as_no_names():
    assert named("Yeah John, can I bring Maria along?") == {("John", "person"), ("Maria", "person")}
    assert named("Writing is my passion these days") == set()
    assert named("You've been great. Wow Joanna, thanks!") == {("Joanna", "person")}


def test_it_reads_shouting_by_known_names_only_and_a_lone_title_as_no_name():
    assert named("I LIVE IN BERLIN AND LOVE IT") == {("BERLIN", "place")}
    assert named("Mr. and Mrs. Smith live upstairs") == {("Mrs. Smith", "person")}
    assert named("St. Louis is home now") == {("St. Louis", "place")}


def test_every_span_points_at_the_name_in_the_text():
    for text in (
        "Anna’s dog is cute",
        "我妹妹李娜在 Google 上班，住在杭州滨江区",
        "I use VS Code on a ThinkPad X1 Carbon",
        "",
    ):
        for entity in extract_entities(text):
            assert text[entity.span[0] : entity.span[1]] == entity.name
