/// The preset zlib dictionary of stored page text, version 1 (FORMAT.md, `search_text_content`):
/// the bytes of `tools/page-text-dictionary-v1.txt` (8190 bytes, SHA-256
/// `7a9e1705b91339943d7f2a6a1478e57035cc96a64fd573de89defacdbde013b9`, Adler-32 `aedbfad5`,
/// the id zlib writes into every stream compressed with it), made by
/// `scripts/make-page-text-dictionary` from the words most PDFs of the real-world test corpus
/// share. Short page text compresses about 6–10% smaller with it (BENCHMARKS.md, "Page text
/// dictionary"). It is part of the format: never changed in place (`PageTextCompressionTests`
/// compares it with the file).
enum PageTextDictionary {
    /// The dictionary's bytes (the file ends with a space, which `text` leaves out so that no
    /// line of this file ends in white space).
    static let bytes: [UInt8] = Array((text + " ").utf8)

    private static let text = """
        Point Nov wish variety tries products parts officer maintain leads id format designated death \
        contribute completion according Theory European Country union reduces recognized looking \
        leading facts effectiveness continues St During Control tests rely potentially fall expressed \
        entitled Security Product Florida website stable size row merely director Union NY IV De \
        solution safety minutes magna grants explains energy constant Social Individuals Friday \
        substantially remain principal participation justo indicated immediately failed criminal \
        assistance Work Return successful spent parents issued happens erat creating checks Using \
        Mexico Annual practical ground feature expect enforcement device continued automatically \
        administration Due AM top permits operation members intervention generated force filled exactly \
        event attack area adjusted Next Item DE Child places labore equipment avoid Foundation operator \
        notion established changing bad Science Does Check plans hold diam depends air affect Privacy \
        According send relations popular office human grant generation exception countries correct \
        Rules Even Dr room request relatively none key Republic More provisions forms files field \
        effort dolore disclosure cover close algorithm Sep Proceedings step series review major lot \
        hours fact development Korea likely developed describe Most Here tables problems negative \
        extent effects describes beyond aircraft With penalties follow distributed class applicable \
        Capital try let financial fees away Then estimated IEEE Because sure sites school generate \
        efficient analysis List David great extended easily Public receive purposes past treated July \
        share whole otherwise column sold requirement limits Online hit gov eligible allowed taking \
        however August run laws requires loss Before reported programs bit told global Only June table \
        old last authors impression Yes benefit author around enable build Digital records John \
        payments kind clear chapter social compensation training say networks history license end \
        America trade real own anyone tree Law plus lines statement every au balance instructions costs \
        Company connected digital me figure Line Your letters argument software enter recording That un \
        my And income copyright counts Introduction Background concerning China testing submit attempt \
        processing explicitly direction Personal Performance Out Based tasks submitted scenario \
        resulting relationships primarily evaluate communication calculated LA Document Both title \
        overall involving frequently completing Mail views providing performing ones methods met \
        discussion conducted comparison THE Georgia receiving quality previously persons highly charges \
        Products Description Comments phone measure closed carried association application achieve \
        November discuss adoption North Last version style probably pdf participate kinds Third \
        Communications useful self path mind mail light evidence background Conference ex District rest \
        prevent determine circumstances central added Model six reasonable modified equal assume Of \
        Lorem Air perform obtain employed months Standard April together pass notice understanding son \
        choose respond reduced production performed groups clearly Technology ut returns opportunity \
        among World USA Aug May short importance care questions paragraph member Under add itself via \
        search group giving TO traditional sale requirements lost Data rather except California \
        decision am al activities net job far Property How issue ii employee doing AND becomes things \
        else article alternative across Federal space shows health effective write unless interests \
        foreign ways se agency four exempt court context Instead ABC design account she back range \
        produced believe applies Los individuals Year generally again Office view removed font protect \
        thus values status others common network find effect side American terms commercial us owner \
        pay es life domain que power years return child Copyright See le du property Form portion \
        Abstract aware sections personnel situations overview detail statistics sent refer adjust \
        Administration summary returned occurred appear Computer higher greater adding Test Oct Notice \
        tools proper permit discussed contrast outside steps reports points description Second Safety \
        Complete listed III usually techniques involved explained degree completed active placed \
        national introduced System Type Number trying took natural contains variables states risk filed \
        applied input easy causes live examples entered Report si seen positive personal Now pages \
        increased While Systems Health Group FOR true systems education DC independent identified error \
        working full children amet rates ipsum dolor user study dependent Code Any respect extend \
        defined already practice actual Services December model ability th purpose produce functions \
        basis come best period average September users sed One Long All off help actions created act \
        implementation go five articles knowledge instead research mean included country What while \
        Service makes her uses next become private However gain proposed re course know La meaning \
        never computer think basic rule protection idea link When individual record interest business \
        distribution University did might upon term least works even San he family States United But \
        law relationship CA indicate applying expected regarding although setting estimate note West \
        situation management forward Government face base reference Example necessarily determined \
        Education represent along sample relevant approach takes sources separate position needs \
        affected From reasons impact identify follows cause March January turn Finally limitations \
        Management several further failure designed currently continue allows II direct once needed \
        taken left beginning City minimum issues significant Business future paper known final \
        considered Association items hard limit put After directly always policy match Not increase Do \
        Hello Also services called per high support problem check Figure item subject function below \
        home described limited question too comments simple material program local particular means \
        existing long Section value whether Act point code file documents various location Please OF \
        Transportation safe PDF initial implemented Each prior post provides physical multiple contact \
        substantial improve complex present associated level specific normal category reduce site later \
        General list Note actually sit includes allow published require keep open since standard \
        process days complete related selected longer similar given conditions state contain Total \
        Table action second making still results difference York rate show plan form changes service \
        read people look certain written Is copy language less access page control We could free low \
        State numbers ensure Since main lower necessary Washington Special often until By times \
        consider additional appropriate provide addition large create done length cases response due \
        down test performance give want general person better single shown good words gives source \
        during world many call case much example year est public just org en content Page Name previous \
        Although October condition document Department provided types enough South current result being \
        either rules three details both required These They now very does used http system data la work \
        line Date explain community International having reason etc address order name An Other another \
        apply able possible At date up original received against total take different part same made \
        his Potato because then its must amount our had would we your National small Information day \
        using place within where change including here important well As been what You get were On \
        cannot non report above over through after two There first set most under them right their see \
        use found Some www based special com include To each number new such without make way when some \
        For who can was First need New section those available into type before also It which they \
        following like information these but there has any et de how so if text time than about In you \
        out No more may only other will If should from one all have between as this do by it The with \
        that or This no an not at are be on for to in is the and of
        """
}
