"""Names the extractor knows without context: widely used products and tools, well-known companies and
institutions, countries, large cities and regions, common given names and Chinese surnames.

Written by hand for memoryapp from general knowledge (no list copied from elsewhere), kept small: rules
find the rest (capitalised spans, jieba's tags, context words). A name that is also an ordinary English
word ("slack", "notion", "go") is only taken in lower case after a verb of use (see english.py).
"""

from __future__ import annotations


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.replace("\n", "|").split("|") if n.strip())


PRODUCTS = _names("""
iPhone|iPad|iPad Air|iPad Pro|iPad mini|MacBook|MacBook Air|MacBook Pro|iMac|Mac mini|Apple Watch|AirPods|Vision Pro|
Pixel|Galaxy|Kindle|Kindle Paperwhite|Kindle Oasis|Kobo|Echo|Alexa|Siri|Switch|Nintendo Switch|PS4|PS5|PlayStation|Xbox|
Steam Deck|ThinkPad|Surface|Chromebook|Raspberry Pi|Arduino|Garmin|Fitbit|Oura|Peloton|GoPro|Roomba|Dyson|Brompton|
Tesla Model 3|Tesla Model Y|Model 3|Model Y|Prius|Leica|Walkman|
Slack|Discord|Teams|Microsoft Teams|Zoom|Google Meet|Webex|Skype|WhatsApp|Telegram|Signal|WeChat|WeChat Pay|LINE|Messenger|
Gmail|Outlook|Google Docs|Google Sheets|Google Drive|Google Photos|Google Maps|Google Cloud|GCP|AWS|Azure|Heroku|Vercel|Netlify|
Cloudflare|Firebase|Supabase|DigitalOcean|
Notion|Obsidian|Evernote|OneNote|Bear|Logseq|Roam|Todoist|Things|TickTick|Trello|Asana|Jira|Confluence|Linear|ClickUp|
Miro|Figma|Sketch|Canva|Photoshop|Lightroom|Illustrator|Premiere|Final Cut Pro|DaVinci Resolve|Audacity|Logic Pro|
Ableton|GarageBand|Blender|Unity|Unreal|Excel|Word|PowerPoint|Numbers|Pages|Keynote|Office|Microsoft Office|WPS|
Google Calendar|Calendly|Salesforce|HubSpot|Workday|SAP|Zendesk|Intercom|Stripe|PayPal|Venmo|Alipay|
1Password|Bitwarden|LastPass|Dropbox|OneDrive|iCloud|Spotify|Apple Music|YouTube|YouTube Music|Netflix|Hulu|Disney+|
Audible|Pocket|Instapaper|Feedly|Reddit|Twitter|X|Instagram|Facebook|TikTok|LinkedIn|Mastodon|Bluesky|Threads|Snapchat|
Pinterest|Tumblr|Medium|Substack|Duolingo|Babbel|Anki|Headspace|Calm|Strava|Zwift|MyFitnessPal|Keep|Uber|Lyft|
Airbnb|Booking|Google Translate|DeepL|ChatGPT|Claude|Gemini|Copilot|GitHub Copilot|Cursor|Midjourney|Ollama|
TurboTax|QuickBooks|Xero|Mint|YNAB|Home Assistant|Plex|Jellyfin|Pi-hole|Tailscale|WireGuard|
Python|JavaScript|TypeScript|Java|Kotlin|Swift|Rust|Go|Golang|Ruby|PHP|Scala|Elixir|Erlang|Haskell|Clojure|C++|C#|
Dart|Flutter|React|React Native|Vue|Angular|Svelte|Next.js|Node.js|Deno|Django|Flask|FastAPI|Rails|Ruby on Rails|
Spring|Spring Boot|Laravel|Phoenix|.NET|Tokio|PyTorch|TensorFlow|TensorRT|JAX|Keras|pandas|NumPy|Jupyter|
Postgres|PostgreSQL|MySQL|MariaDB|SQLite|MongoDB|Redis|Cassandra|Elasticsearch|OpenSearch|ClickHouse|Snowflake|
BigQuery|Oracle|SQL Server|DynamoDB|Kafka|RabbitMQ|Airflow|dbt|Spark|Hadoop|Flink|Kubernetes|k8s|Docker|Terraform|
Ansible|Helm|Jenkins|GitHub|GitHub Actions|GitLab|Bitbucket|CircleCI|Grafana|Prometheus|Datadog|Sentry|New Relic|
Splunk|Postman|gRPC|GraphQL|Nginx|Linux|Ubuntu|Debian|Arch|Fedora|Windows|macOS|iOS|Android|Vim|Neovim|Emacs|
VS Code|Visual Studio|IntelliJ|PyCharm|WebStorm|Rider|JetBrains Rider|Xcode|Android Studio|Sublime Text|Atom|Ulysses|
Scrivener|LaTeX|Overleaf|Zotero|
微信|微信支付|支付宝|钉钉|飞书|企业微信|腾讯会议|石墨文档|印象笔记|抖音|快手|微博|小红书|知乎|B站|哔哩哔哩|豆瓣|淘宝|天猫|
拼多多|美团|饿了么|大众点评|高德地图|百度地图|滴滴出行|网易云音乐|QQ|QQ音乐|QQ 音乐|酷狗|喜马拉雅|爱奇艺|优酷|腾讯视频|
Keep|薄荷健康|多邻国|百词斩|有道词典|夸克|WPS|飞猪|贝壳找房|闲鱼|米家|小米手环|华为手表|鸿蒙|阿里云|腾讯云|
华为云|原神|王者荣耀|和平精英|塞尔达|三体|Switch|任天堂 Switch|
""")

ORGANIZATIONS = _names("""
Google|Alphabet|Microsoft|Apple|Amazon|Meta|Netflix|Spotify|Stripe|Shopify|Airbnb|Uber|Lyft|Tesla|SpaceX|OpenAI|Anthropic|
IBM|Intel|AMD|Nvidia|NVIDIA|Oracle|Salesforce|Adobe|Atlassian|GitLab|GitHub|Canva|Figma|Dropbox|Slack|Zoom|Twitter|
ByteDance|TikTok|Samsung|Sony|LG|Nokia|Ericsson|Siemens|Bosch|SAP|Philips|Toyota|Honda|Volkswagen|BMW|Mercedes|Ford|
Boeing|Airbus|Pfizer|Novartis|Roche|Moderna|Johnson & Johnson|Unilever|Nestlé|P&G|Deloitte|PwC|EY|KPMG|Accenture|
McKinsey|BCG|Bain|Goldman Sachs|Morgan Stanley|JPMorgan|J.P. Morgan|Chase|Citi|Citibank|Bank of America|Wells Fargo|
HSBC|Barclays|Lloyds|Santander|BNP Paribas|Deutsche Bank|UBS|RBC|TD|Monzo|Revolut|N26|Ally|Wise|
Booking.com|Expedia|Deliveroo|DoorDash|Instacart|Grab|Gojek|Shopee|Lazada|Rakuten|Mercari|Klarna|
Vercel|Hetzner|DigitalOcean|Cloudflare|Automattic|Mozilla|Wikimedia|Canonical|Red Hat|HubSpot|Zendesk|Twilio|
Datadog|Snowflake|Databricks|Palantir|Coinbase|Square|Block|PayPal|eBay|Etsy|Walmart|Target|Costco|IKEA|Starbucks|
Pret|Blue Bottle|Boots|Tesco|Sainsbury's|Aldi|Lidl|Whole Foods|Kaiser Permanente|Mayo Clinic|NHS|BBC|CNN|
The New York Times|Reuters|Bloomberg|UNICEF|UN|United Nations|WHO|World Bank|IMF|Red Cross|Greenpeace|Sierra Club|
Salvation Army|Peace Corps|Apache Software Foundation|Linux Foundation|Python Software Foundation|
Harvard|Stanford|MIT|Oxford|Cambridge|Yale|Princeton|Columbia|Berkeley|UCLA|NYU|Caltech|Georgia Tech|McGill|INSEAD|
Imperial College London|ETH Zurich|Sorbonne|
腾讯|阿里巴巴|阿里|字节跳动|百度|华为|小米|美团|京东|网易|拼多多|快手|滴滴|携程|大疆|商汤科技|商汤|旷视科技|旷视|
蚂蚁集团|蔚来|小鹏汽车|小鹏|理想汽车|零跑汽车|比亚迪|宁德时代|联想|海康威视|中兴|格力|海尔|美的集团|
顺丰|中通快递|京东物流|新东方|学而思|好未来|得物|SHEIN|希音|中金公司|中信证券|平安保险|中国平安|中国人寿|
招商银行|中国银行|工商银行|中国工商银行|建设银行|中国建设银行|农业银行|交通银行|微众银行|星展银行|摩根大通|
国家电网|南方电网|中石化|中石油|中国移动|中国电信|中国联通|中国科学院|中科院|
北京大学|北大|清华大学|清华|复旦大学|复旦|上海交通大学|浙江大学|南京大学|武汉大学|中山大学|同济大学|四川大学|
厦门大学|哈尔滨工业大学|北京协和医学院|协和医院|华西医院|
苹果公司|三星|索尼|佳能|尼康|松下|任天堂|特斯拉|丰田|本田|大众|宝马|奔驰|奥迪|福特|日产|现代|吉利|长城汽车|长安汽车|
戴森|九阳|格兰仕|小牛|雅迪|耐克|阿迪达斯|优衣库|宜家|星巴克|麦当劳|肯德基|可口可乐|迪士尼|
""")

# Companies whose name is also their product: the context decides ("at Netflix" / "watch Netflix").
COMPANY_OR_PRODUCT = frozenset(
    _names("""
Google|Microsoft|Apple|Amazon|Netflix|Spotify|Airbnb|Booking|Uber|Zoom|Slack|Twitter|TikTok|Figma|Canva|Dropbox|
GitHub|GitLab|Salesforce|HubSpot|Stripe|PayPal|Tesla|Oracle|Datadog|Snowflake|Shopify|Sony|Samsung|Garmin|Dyson|
Peloton|Kindle|淘宝|拼多多|美团|小红书|京东|抖音|快手|滴滴|携程|华为|小米|网易|飞猪|
三星|索尼|佳能|尼康|任天堂|特斯拉|丰田|本田|戴森|九阳|小牛|雅迪|
""")
)

PLACES = _names("""
Afghanistan|Albania|Algeria|Argentina|Armenia|Australia|Austria|Bangladesh|Belgium|Bolivia|Brazil|Bulgaria|Cambodia|
Canada|Chile|China|Colombia|Croatia|Cuba|Cyprus|Czechia|Denmark|Ecuador|Egypt|England|Estonia|Ethiopia|Finland|France|
Georgia|Germany|Ghana|Greece|Hungary|Iceland|India|Indonesia|Iran|Iraq|Ireland|Israel|Italy|Jamaica|Japan|Jordan|
Kenya|Korea|South Korea|Latvia|Lebanon|Lithuania|Malaysia|Mexico|Morocco|Nepal|Netherlands|New Zealand|Nigeria|Norway|
Pakistan|Peru|Philippines|Poland|Portugal|Romania|Russia|Scotland|Serbia|Singapore|Slovakia|Slovenia|South Africa|
Spain|Sri Lanka|Sweden|Switzerland|Taiwan|Thailand|Turkey|Ukraine|Uruguay|Venezuela|Vietnam|Wales|UK|USA|US|
California|Texas|Florida|New York|Oregon|Washington|Colorado|Arizona|Nevada|Utah|Maine|Vermont|Massachusetts|
Michigan|Ohio|Illinois|Virginia|Carolina|Hawaii|Alaska|Ontario|Quebec|British Columbia|Bavaria|Tuscany|Provence|
Sicily|Crete|Bali|Cornwall|Yorkshire|Scandinavia|Europe|Asia|Africa|
London|Paris|Berlin|Munich|Hamburg|Frankfurt|Cologne|Vienna|Zurich|Geneva|Amsterdam|Rotterdam|Brussels|Madrid|
Barcelona|Valencia|Seville|Lisbon|Porto|Rome|Milan|Naples|Florence|Venice|Turin|Athens|Istanbul|Prague|Budapest|
Warsaw|Krakow|Copenhagen|Stockholm|Oslo|Helsinki|Reykjavik|Dublin|Edinburgh|Glasgow|Manchester|Liverpool|Leeds|
Bristol|Brighton|Oxford|Cambridge|Bath|Belfast|Cardiff|Lyon|Marseille|Bordeaux|Nice|Riga|Tallinn|Vilnius|Moscow|Kyiv|
New York City|NYC|Brooklyn|Queens|Manhattan|Boston|Chicago|Seattle|Portland|San Francisco|Los Angeles|LA|San Diego|
San Jose|Oakland|Berkeley|Sacramento|Austin|Dallas|Houston|Denver|Boulder|Phoenix|Atlanta|Miami|Orlando|Nashville|
Philadelphia|Pittsburgh|Detroit|Minneapolis|Washington DC|Baltimore|Las Vegas|Salt Lake City|Honolulu|Toronto|
Vancouver|Montreal|Calgary|Ottawa|Mexico City|Buenos Aires|Sao Paulo|Rio de Janeiro|Lima|Bogota|Santiago|
Tokyo|Osaka|Kyoto|Nagoya|Sapporo|Fukuoka|Seoul|Busan|Beijing|Shanghai|Shenzhen|Hong Kong|Taipei|Singapore|
Bangkok|Hanoi|Ho Chi Minh City|Manila|Jakarta|Kuala Lumpur|Mumbai|Delhi|Bangalore|Bengaluru|Chennai|Dubai|
Abu Dhabi|Doha|Tel Aviv|Cairo|Lagos|Nairobi|Accra|Cape Town|Johannesburg|Sydney|Melbourne|Brisbane|Perth|Auckland|
Wellington|Yosemite|Lake Tahoe|Big Sur|Whistler|Santorini|Thames|Danube|Silicon Valley|Times Square|Central Park|
中国|美国|英国|法国|德国|日本|韩国|新加坡|加拿大|澳大利亚|新西兰|意大利|西班牙|瑞士|荷兰|泰国|越南|马来西亚|
马尔代夫|印度|俄罗斯|
北京|上海|天津|重庆|广州|深圳|杭州|南京|苏州|成都|武汉|西安|长沙|郑州|青岛|厦门|大连|沈阳|哈尔滨|济南|合肥|
福州|昆明|贵阳|南宁|海口|三亚|兰州|乌鲁木齐|拉萨|呼和浩特|太原|石家庄|南昌|宁波|无锡|东莞|佛山|珠海|泉州|温州|
桂林|丽江|大理|香港|澳门|台北|
河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|贵州|云南|陕西|甘肃|
青海|台湾|内蒙古|广西|西藏|宁夏|新疆|
东京|大阪|京都|首尔|纽约|伦敦|巴黎|柏林|悉尼|墨尔本|多伦多|温哥华|洛杉矶|旧金山|西雅图|波士顿|芝加哥|曼谷|
西湖|外滩|中关村|望京|国贸|陆家嘴|光谷|前海|鼓浪屿|九寨沟|青海湖|
""")

# Given names common in English-speaking and international settings: a capitalised word among these,
# with no other cue, is a person. Not exhaustive: "my sister Anna" and "Anna and I" find the rest.
FIRST_NAMES = frozenset(
    _names("""
Aaron|Adam|Adrian|Ahmed|Aisha|Alan|Alex|Alexander|Alice|Alicia|Ali|Amanda|Amelia|Amy|Andre|Andrea|Andrew|Andy|
Angela|Anna|Anne|Anthony|Arjun|Arun|Ava|Ben|Benjamin|Beth|Bill|Bob|Brian|Caleb|Carl|Carlos|Carol|Caroline|Catherine|
Charlie|Charlotte|Chloe|Chris|Christina|Claire|Daniel|Daniela|Dan|David|Derek|Diana|Diego|Dmitri|Elena|Eli|Elizabeth|
Ella|Emily|Emma|Eric|Ethan|Eva|Farah|Fatima|Felix|Frank|Gabriel|George|Grace|Greg|Hannah|Harry|Helen|Henry|Hiro|
Hiroshi|Ian|Ines|Ingrid|Isaac|Isabel|Isabella|Jack|Jacob|James|Jane|Jason|Jasmine|Jen|Jenny|Jess|Jessica|Joe|John|
Jonas|Jordan|Jose|Josh|Joshua|Julia|Julie|Kai|Karen|Kate|Katie|Keiko|Kenji|Kevin|Kim|Kwame|Laura|Leo|Liam|Lily|
Linda|Lisa|Lucas|Lucia|Luis|Luke|Maria|Mark|Marco|Marcus|Maria|Mary|Mateo|Matt|Max|Maya|Megan|Mei|Mia|Michael|
Michelle|Mike|Mohammed|Nadia|Nancy|Natalie|Nathan|Nick|Nico|Noah|Olga|Oliver|Olivia|Omar|Oscar|Pablo|Paul|Pedro|
Pete|Peter|Priya|Rachel|Raj|Rebecca|Robert|Rosa|Rose|Ruth|Ryan|Sam|Samuel|Sara|Sarah|Sean|Sofia|Sophie|Steve|
Susan|Sven|Tariq|Tasha|Thomas|Tim|Tom|Tony|Victor|Wei|William|Yuki|Zoe
""")
)

# Surnames that begin most Chinese names: a 2-3 character word starting with one, after a relation word
# (我妹妹, 同事) or before a title (医生, 老师, 总), is a person.
ZH_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏"
    "吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵"
    "万钱严覃武戴莫孔向汤"
)
