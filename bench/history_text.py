"""The words of bench.history_data's conversations, written for this project: what one user asks an assistant
over four years, in English and Chinese, and the facts of their life that come up along the way.

A topic gives titles, openers (a first message), follow-ups and replies; `{slots}` are filled from SLOTS. The
user's facts are dated (FACTS): each holds from `since` to `until`, so a conversation only says what was true
on its day. The city is the one the benchmark asks about: CITY_BEFORE until MOVED_ON, CITY_AFTER after.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

CITY_BEFORE = {"en": "Chengdu", "zh": "成都"}
CITY_AFTER = {"en": "Berlin", "zh": "柏林"}
MOVED_ON = date(2025, 4, 12)
NEW_JOB_ON = date(2025, 7, 1)
FIRST_DAY = date(2023, 1, 3)
LAST_DAY = date(2026, 10, 30)


@dataclass(frozen=True)
class Fact:
    key: str
    since: date
    until: date
    en: tuple[str, ...]
    zh: tuple[str, ...]


_BEGIN, _END = date(2000, 1, 1), date(2100, 1, 1)
FACTS = (
    Fact(
        "city",
        _BEGIN,
        date(2025, 2, 10),
        (
            "I live in Chengdu.",
            "It has been raining in Chengdu all week.",
            "I've been living in Chengdu for three years now.",
            "My flat in Chengdu is pretty small, just one bedroom.",
            "Here in Chengdu everything closes late, which I love.",
        ),
        (
            "我住在成都。",
            "成都这周一直在下雨。",
            "我在成都已经住了三年了。",
            "我在成都的公寓挺小的，只有一个卧室。",
            "在成都什么都开到很晚，我很喜欢。",
        ),
    ),
    Fact(
        "city",
        date(2025, 2, 10),
        MOVED_ON,
        (
            "I'm moving from Chengdu to Berlin in a few weeks.",
            "We're packing up; the move from Chengdu to Berlin is next month.",
            "I signed the lease for a flat in Berlin, we leave Chengdu in April.",
        ),
        ("我过几周要从成都搬到柏林。", "我们在打包，下个月从成都搬去柏林。", "柏林的房子已经签了，四月份离开成都。"),
    ),
    Fact(
        "city",
        MOVED_ON,
        date(2025, 8, 1),
        (
            "I just moved to Berlin from Chengdu.",
            "Since moving to Berlin I've been cooking a lot more.",
            "I moved to Berlin this spring and I'm still unpacking.",
        ),
        ("我刚从成都搬到柏林。", "搬到柏林以后我做饭多了很多。", "我今年春天搬到了柏林，东西还没收拾完。"),
    ),
    Fact(
        "city",
        date(2025, 8, 1),
        _END,
        (
            "I live in Berlin now.",
            "Here in Berlin the winters are long and dark.",
            "My flat in Berlin is close to the Spree.",
            "I've lived in Berlin for a while now.",
        ),
        ("我现在住在柏林。", "柏林的冬天又长又暗。", "我在柏林的公寓离施普雷河很近。", "我在柏林已经住了一段时间了。"),
    ),
    Fact(
        "job",
        _BEGIN,
        NEW_JOB_ON,
        ("I work as a backend developer at a game studio.", "At my job I mostly write Go services for a mobile game."),
        ("我在一家游戏公司做后端开发。", "我工作主要是给一款手游写Go服务。"),
    ),
    Fact(
        "job",
        NEW_JOB_ON,
        _END,
        ("I started a new job at a logistics startup.", "At the logistics startup I lead a team of four."),
        ("我在一家物流创业公司开始了新工作。", "我在物流创业公司带一个四人小组。"),
    ),
    Fact(
        "allergy",
        _BEGIN,
        _END,
        ("I'm allergic to peanuts.", "Remember I can't eat peanuts, I'm allergic."),
        ("我对花生过敏。", "我不能吃花生，会过敏。"),
    ),
    Fact(
        "cat",
        _BEGIN,
        _END,
        ("My cat Mochi is getting old.", "Mochi, my cat, sleeps on my keyboard."),
        ("我的猫叫麻糬，年纪有点大了。", "我家猫麻糬总睡在我的键盘上。"),
    ),
    Fact(
        "sport",
        date(2023, 9, 1),
        _END,
        ("I go bouldering every Thursday.", "I've been bouldering twice a week lately."),
        ("我每周四去抱石。", "最近我每周去攀岩两次。"),
    ),
    Fact(
        "german",
        date(2024, 10, 1),
        _END,
        ("I'm learning German, I'm at about A2.", "My German class is on Tuesday evenings."),
        ("我在学德语，大概A2水平。", "我的德语课在周二晚上。"),
    ),
)

SLOTS = {
    "n": ("2", "3", "4", "5", "6", "8", "10", "12"),
    "dish": ("mapo tofu", "dumplings", "a lentil curry", "ramen", "a vegetable stir-fry", "risotto"),
    "菜": ("麻婆豆腐", "饺子", "扁豆咖喱", "拉面", "炒青菜", "番茄炒蛋"),
    "place": ("Kyoto", "Lisbon", "Hokkaido", "Yunnan", "the Alps", "Copenhagen", "Seoul"),
    "地方": ("京都", "里斯本", "北海道", "云南", "阿尔卑斯山", "哥本哈根", "首尔"),
    "lang": ("Go", "Python", "TypeScript", "Rust", "SQL"),
    "book": ("The Three-Body Problem", "Project Hail Mary", "Educated", "Sapiens", "Klara and the Sun"),
    "书": ("《三体》", "《活着》", "《人类简史》", "《长安的荔枝》", "《克拉拉与太阳》"),
    "gift": ("a friend's birthday", "my mother", "a colleague who is leaving", "my partner Lin"),
    "礼物": ("朋友的生日", "我妈妈", "要离职的同事", "我的伴侣林"),
    "day": ("Monday", "Friday", "next week", "the weekend", "tomorrow", "the end of the month"),
    "日": ("周一", "周五", "下周", "周末", "明天", "月底"),
}

# topic -> language -> part -> texts
TOPICS: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
    "coding": {
        "en": {
            "titles": ("Debugging a {lang} service", "{lang} error handling", "Slow query in {lang}"),
            "openers": (
                "My {lang} service leaks memory after a few hours. How would you find where?",
                "How should I structure error handling in a {lang} project with {n} modules?",
                "This query takes {n} seconds on a table with a million rows. What indexes should I try?",
            ),
            "followups": (
                "I tried that, the profile shows most time in JSON encoding.",
                "Can you show a minimal example?",
                "What would a test for this look like?",
                "Is there a library for this or should I write it myself?",
            ),
            "replies": (
                "Start with a heap profile taken a few minutes apart and compare the two.",
                "Wrap errors at the boundary and keep the original as the cause.",
                "A composite index on the filter columns, in the order you filter, usually helps most.",
                "Here is a minimal version: read the input, validate once, then pass plain values down.",
            ),
        },
        "zh": {
            "titles": ("{lang}服务排查", "{lang}的错误处理", "{lang}慢查询优化"),
            "openers": (
                "我的{lang}服务跑几个小时就内存泄漏，怎么定位？",
                "一个有{n}个模块的{lang}项目，错误处理应该怎么组织？",
                "这个查询在百万行的表上要{n}秒，该加什么索引？",
            ),
            "followups": (
                "试过了，火焰图显示大部分时间在JSON编码上。",
                "能给个最小的例子吗？",
                "这个怎么写测试？",
                "有现成的库吗，还是自己写？",
            ),
            "replies": (
                "先隔几分钟各抓一次堆快照，对比两次的差异。",
                "在边界处包装错误，保留原始错误作为原因。",
                "按过滤顺序建一个组合索引，通常效果最好。",
                "最小的写法是：读入、校验一次、再往下传普通的值。",
            ),
        },
    },
    "cooking": {
        "en": {
            "titles": ("Cooking {dish}", "Dinner ideas", "Meal prep for the week"),
            "openers": (
                "I want to make {dish} for {n} people this weekend. Can you give me a recipe?",
                "What can I cook tonight with rice, eggs, spinach and some tofu?",
                "Help me plan {n} lunches I can prepare on Sunday.",
            ),
            "followups": (
                "Can I make it less spicy?",
                "How long does it keep in the fridge?",
                "I don't have an oven, only a rice cooker and a pan.",
                "What could I serve with it?",
            ),
            "replies": (
                "Toast the spices first, then add the aromatics and let it simmer for twenty minutes.",
                "Cooked and cooled quickly, it keeps three to four days in the fridge.",
                "Use half the chili and add a spoon of sugar to round it off.",
                "A simple cucumber salad with vinegar and garlic goes well with it.",
            ),
        },
        "zh": {
            "titles": ("做{菜}", "今晚吃什么", "一周备餐"),
            "openers": (
                "这周末想给{n}个人做{菜}，能给个菜谱吗？",
                "家里有米饭、鸡蛋、菠菜和一点豆腐，今晚能做什么？",
                "帮我规划一下周日能准备好的{n}份午饭。",
            ),
            "followups": (
                "能做得不那么辣吗？",
                "冰箱里能放多久？",
                "我没有烤箱，只有电饭锅和平底锅。",
                "配什么比较好？",
            ),
            "replies": (
                "先把香料炒香，再下葱姜蒜，小火炖二十分钟。",
                "做好后尽快放凉，冷藏可以放三到四天。",
                "辣椒减半，再加一勺糖中和一下。",
                "配一个凉拌黄瓜就很好。",
            ),
        },
    },
    "travel": {
        "en": {
            "titles": ("Trip to {place}", "{n} days in {place}", "Packing for {place}"),
            "openers": (
                "I'm planning {n} days in {place} in the autumn. What should I not miss?",
                "What's the cheapest way to get around {place}?",
                "Can you make a packing list for a hiking trip to {place}?",
            ),
            "followups": (
                "I'd rather avoid the big tourist spots.",
                "What about food, anything local I should try?",
                "Is it easy without speaking the language?",
                "Can you put that into a day-by-day plan?",
            ),
            "replies": (
                "Spend the first day walking the old town, and keep one day free for the weather.",
                "A regional rail pass usually pays for itself after three trips.",
                "Layers, a rain shell and broken-in shoes matter more than anything else.",
                "Here is a day-by-day plan with mornings for sights and afternoons for wandering.",
            ),
        },
        "zh": {
            "titles": ("{地方}旅行", "{地方}{n}日游", "去{地方}要带什么"),
            "openers": (
                "秋天想去{地方}玩{n}天，有哪些不能错过的？",
                "在{地方}怎么出行最省钱？",
                "去{地方}徒步，帮我列个行李清单吧。",
            ),
            "followups": (
                "我不太想去人多的景点。",
                "吃的方面有什么推荐？",
                "不会当地语言方便吗？",
                "能排成每天的行程吗？",
            ),
            "replies": (
                "第一天在老城走走，留一天机动应对天气。",
                "买一张区域交通通票，坐三次以上就回本了。",
                "多带几层衣服、一件防雨外套和一双穿惯的鞋。",
                "下面是按天排的行程，上午看景点，下午随意逛。",
            ),
        },
    },
    "fitness": {
        "en": {
            "titles": ("Training plan", "Sore shoulders", "Running and climbing"),
            "openers": (
                "Can you write me a {n}-week plan to run my first 10k?",
                "My shoulders hurt after climbing. What stretches help?",
                "How do I fit strength training into a week with {n} free evenings?",
            ),
            "followups": (
                "I can only train in the evenings.",
                "Is it fine to run on consecutive days?",
                "What should I eat before?",
            ),
            "replies": (
                "Build up by about ten percent a week and keep one easy run slow enough to talk.",
                "Doorway stretches and band pull-aparts, done daily, help most climbers.",
                "Two full-body sessions a week are enough to make steady progress.",
            ),
        },
        "zh": {
            "titles": ("训练计划", "肩膀酸痛", "跑步和攀岩"),
            "openers": (
                "能帮我写一个{n}周的10公里入门跑步计划吗？",
                "攀岩以后肩膀疼，做什么拉伸有用？",
                "一周只有{n}个晚上有空，怎么安排力量训练？",
            ),
            "followups": ("我只能晚上练。", "连续两天跑步可以吗？", "训练前吃什么好？"),
            "replies": (
                "每周增加大约百分之十，轻松跑要慢到能说话。",
                "每天做门框拉伸和弹力带外展，对攀岩的人最有用。",
                "每周两次全身训练就足够稳定进步了。",
            ),
        },
    },
    "writing": {
        "en": {
            "titles": ("Email to my landlord", "Cover letter draft", "Polite reminder"),
            "openers": (
                "Help me write a polite email to my landlord about a broken heater.",
                "Can you tighten this cover letter? It's {n} paragraphs and too long.",
                "How do I remind a colleague about a review without sounding pushy?",
            ),
            "followups": ("Make it a bit warmer.", "Shorter, please.", "Can you make it more formal?"),
            "replies": (
                "Here is a draft that states the problem, the date it started and what you'd like done.",
                "I cut it to three paragraphs and led with what you've shipped.",
                "A short note that offers to help usually lands better than a deadline.",
            ),
        },
        "zh": {
            "titles": ("给房东的邮件", "求职信修改", "委婉的提醒"),
            "openers": (
                "帮我给房东写封礼貌的邮件，暖气坏了。",
                "这封求职信有{n}段，太长了，能帮我精简吗？",
                "怎么提醒同事看一下代码评审，又不显得催？",
            ),
            "followups": ("语气再温和一点。", "再短一些。", "能写得正式一点吗？"),
            "replies": (
                "这是草稿：说明问题、开始的时间，以及希望怎么处理。",
                "我把它压成了三段，开头先写你做成的事。",
                "主动提出帮忙，通常比给截止时间效果好。",
            ),
        },
    },
    "reading": {
        "en": {
            "titles": ("Book club: {book}", "What to read next", "Notes on {book}"),
            "openers": (
                "I just finished {book}. What did you think of the ending?",
                "Recommend me something like {book}, but shorter.",
                "Can you help me prepare {n} questions for my book club on {book}?",
            ),
            "followups": (
                "Something in Chinese would be nice too.",
                "I prefer audiobooks for commuting.",
                "Why do people like it so much?",
            ),
            "replies": (
                "The ending leaves the choice to the reader, which is why it divides people.",
                "You might like a shorter novel with the same quiet tone.",
                "Here are questions about the narrator, the time jumps and the final chapter.",
            ),
        },
        "zh": {
            "titles": ("读书会：{书}", "下一本读什么", "{书}读书笔记"),
            "openers": (
                "刚读完{书}，你觉得结尾怎么样？",
                "推荐几本像{书}但短一点的书。",
                "帮我给读书会准备{n}个关于{书}的问题。",
            ),
            "followups": ("也想要英文书。", "我通勤时更喜欢听书。", "为什么大家这么喜欢它？"),
            "replies": (
                "结尾把选择留给了读者，所以评价两极。",
                "你可能会喜欢语气同样平静、篇幅更短的小说。",
                "这些问题围绕叙述者、时间跳跃和最后一章。",
            ),
        },
    },
    "money": {
        "en": {
            "titles": ("Monthly budget", "Saving for a trip", "Splitting rent"),
            "openers": (
                "Help me make a monthly budget; I want to save {n} hundred a month.",
                "Is it better to pay off a small loan or keep the cash as savings?",
                "How should {n} flatmates split rent when the rooms differ in size?",
            ),
            "followups": (
                "Can you put it in a table?",
                "What if my income varies month to month?",
                "Which apps do people use for this?",
            ),
            "replies": (
                "Start from fixed costs, then set savings aside on payday before anything else.",
                "Keep three months of costs as a buffer first, then pay down the loan.",
                "Split by floor area for the rooms and equally for the shared space.",
            ),
        },
        "zh": {
            "titles": ("月度预算", "旅行存钱", "合租怎么分房租"),
            "openers": (
                "帮我做个月预算，每个月想存{n}百。",
                "小额贷款是先还掉，还是留着现金做储蓄？",
                "{n}个人合租，房间大小不一样，房租怎么分？",
            ),
            "followups": ("能做成表格吗？", "如果每个月收入不固定呢？", "大家一般用什么记账软件？"),
            "replies": (
                "先算固定支出，发工资当天就把储蓄转出去。",
                "先留三个月的生活费做缓冲，再还贷款。",
                "房间按面积分，公共区域平摊。",
            ),
        },
    },
    "pets": {
        "en": {
            "titles": ("Cat health", "Cat won't eat", "Travelling with a cat"),
            "openers": (
                "My cat has been drinking a lot of water lately. Should I worry?",
                "How do I get an older cat to eat wet food?",
                "What do I need to fly with a cat for {n} hours?",
            ),
            "followups": ("She's about twelve.", "The vet is only open on weekdays.", "Is a sedative a good idea?"),
            "replies": (
                "Drinking more can point to kidney or thyroid problems; a blood test will tell.",
                "Warm the food slightly and try small portions a few times a day.",
                "You need a soft carrier that fits under the seat and the airline's health form.",
            ),
        },
        "zh": {
            "titles": ("猫咪健康", "猫不吃饭", "带猫出远门"),
            "openers": (
                "我家猫最近喝水特别多，要担心吗？",
                "老猫不爱吃湿粮怎么办？",
                "带猫坐{n}个小时飞机要准备什么？",
            ),
            "followups": ("她大概十二岁了。", "宠物医院只有工作日开门。", "用镇静剂好吗？"),
            "replies": (
                "喝水变多可能是肾脏或甲状腺的问题，验个血就知道。",
                "把罐头稍微加热，少量多餐试试。",
                "需要一个能放在座位下的软包和航空公司的健康证明。",
            ),
        },
    },
    "language": {
        "en": {
            "titles": ("German practice", "Grammar question", "Vocabulary drill"),
            "openers": (
                "Can you quiz me on {n} German words for the supermarket?",
                "When do I use 'seit' and when 'vor' in German?",
                "Correct my German: 'Ich habe gestern nach Hause gegangen.'",
            ),
            "followups": ("Give me a few more.", "Can you explain it more simply?", "How would a native say it?"),
            "replies": (
                "'Seit' is for something still going on, 'vor' for a point in the past.",
                "It's 'Ich bin gestern nach Hause gegangen': verbs of movement take 'sein'.",
                "Here are ten words with an example sentence for each.",
            ),
        },
        "zh": {
            "titles": ("德语练习", "语法问题", "背单词"),
            "openers": (
                "考我{n}个超市里用的德语单词吧。",
                "德语里seit和vor什么时候用？",
                "帮我改一下这句德语：Ich habe gestern nach Hause gegangen.",
            ),
            "followups": ("再来几个。", "能解释得再简单点吗？", "母语者会怎么说？"),
            "replies": (
                "seit表示持续到现在的事，vor表示过去的某个时间点。",
                "应该是Ich bin gestern nach Hause gegangen，表示移动的动词用sein。",
                "这是十个单词，每个配一个例句。",
            ),
        },
    },
    "gifts": {
        "en": {
            "titles": ("Gift ideas", "Present for {gift}", "Birthday plans"),
            "openers": (
                "I need a gift for {gift}, under {n}0 euros. Ideas?",
                "What's a thoughtful present for {gift}?",
            ),
            "followups": (
                "They like hiking and tea.",
                "Something handmade would be nice.",
                "It needs to arrive by Friday.",
            ),
            "replies": (
                "A good tea sampler with a handwritten note is hard to go wrong with.",
                "An experience, like a class you do together, is often remembered longest.",
            ),
        },
        "zh": {
            "titles": ("礼物推荐", "给{礼物}的礼物", "生日安排"),
            "openers": ("要给{礼物}买礼物，预算{n}百以内，有什么建议？", "送{礼物}什么礼物比较用心？"),
            "followups": ("对方喜欢徒步和喝茶。", "手工的东西会不会更好？", "周五之前要送到。"),
            "replies": ("一套好茶加一张手写卡片，很难出错。", "一起去上一节体验课，往往最让人记得住。"),
        },
    },
}

GENERIC = {
    "en": {
        "followups": (
            "Thanks, that helps.",
            "Could you explain the second point a bit more?",
            "What would you do in my place?",
            "OK, and what's the next step?",
            "That makes sense. Anything I should watch out for?",
            "Can you summarise that in three bullet points?",
        ),
        "replies": (
            "Glad it helps. The short version: start small and adjust after a week.",
            "Sure. The main idea is to do the simple thing first and measure before changing more.",
            "In your place I'd try the cheapest option for a week and see how it feels.",
            "The next step is to write down what you want by the end of the month.",
            "Watch out for doing everything at once; one change at a time is easier to judge.",
        ),
        "closings": (
            "Want me to go into more detail?",
            "Let me know how it goes.",
            "I can make a checklist if that helps.",
        ),
        "reactions": (
            "OK.",
            "Got it.",
            "Hmm,",
            "Interesting.",
            "Right,",
            "Thanks!",
            "Sounds good.",
            "Oh nice.",
            "Wait,",
        ),
        "details": (
            "I have about {n} hours for this this week.",
            "It needs to be done by {day}.",
            "My budget is around {n}0 euros.",
            "I tried something similar {n} weeks ago.",
            "My partner Lin thinks I'm overthinking it.",
            "I'm on my phone, so keep it short.",
            "A friend recommended the same thing.",
            "Last time it took me {n} tries.",
            "I'd like to start {day}.",
            "Sorry if this is obvious, long day.",
        ),
    },
    "zh": {
        "followups": (
            "谢谢，很有帮助。",
            "第二点能再展开讲讲吗？",
            "如果是你会怎么做？",
            "好的，下一步呢？",
            "明白了，有什么要注意的？",
            "能总结成三点吗？",
        ),
        "replies": (
            "很高兴有帮助。简单说：先从小处开始，一周后再调整。",
            "好的。核心是先做最简单的，改之前先衡量一下。",
            "如果是我，会先用最省钱的办法试一周看看。",
            "下一步是写下你月底之前想达到什么。",
            "注意别一次改太多，一次只改一件事更好判断。",
        ),
        "closings": ("需要我再详细说说吗？", "有结果告诉我。", "需要的话我可以列个清单。"),
        "reactions": ("好的。", "明白了。", "嗯，", "有意思。", "对，", "谢谢！", "听起来不错。", "哦，", "等一下，"),
        "details": (
            "我这周大概有{n}个小时弄这个。",
            "{日}之前要弄好。",
            "预算大概{n}百。",
            "我{n}周前试过类似的。",
            "林觉得我想太多了。",
            "我在手机上打字，简短点。",
            "朋友也推荐过这个。",
            "上次我试了{n}次才成功。",
            "想从{日}开始。",
            "今天有点累，问题可能很傻。",
        ),
    },
}
